from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import serializers as s
from accounts.services import token_obtain, user_register
from core.throttling import ScopedRateThrottle


class RegisterApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "register"

    @extend_schema(request=s.RegisterInput, responses={201: s.RegisterOutput}, tags=["accounts"])
    def post(self, request: Request) -> Response:
        data = s.RegisterInput(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = user_register(**data.validated_data)
        return Response({"username": user.username, "token": token}, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "register"

    @extend_schema(request=s.TokenInput, responses={200: s.TokenOutput}, tags=["accounts"])
    def post(self, request: Request) -> Response:
        data = s.TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        return Response({"token": token_obtain(**data.validated_data)})


class MeApi(APIView):
    @extend_schema(responses={200: s.MeOutput}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        return Response(s.MeOutput(request.user).data)
