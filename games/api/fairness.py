from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.errors import NotSupported


class FairnessKeyApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={400: OpenApiResponse(description="not_supported until receipts are signed")},
        tags=["fairness"],
    )
    def get(self, request: Request) -> Response:
        raise NotSupported("Receipts are not signed yet: there is no public key to publish.")
