"""Account endpoints: each view validates its input, calls one service, and answers."""

from typing import cast

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import serializers as s
from accounts.models import User
from accounts.services import (
    account_delete,
    account_export,
    account_update,
    password_change,
    password_reset_confirm,
    password_reset_request,
    token_obtain,
    token_revoke,
    token_rotate,
    user_register,
)

RESET_ACCEPTED = (
    "If an active account has this address, a reset link is on its way; "
    "it works once, for a limited time."
)


def _input(serializer_class: type, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _user(request: Request) -> User:
    return cast(User, request.user)


def _current(request: Request) -> User:
    """The request's user with every field as the database has it now: the token cache gives
    an identity whose other fields are deferred (``accounts.authentication``)."""
    user = _user(request)
    return User.objects.get(pk=user.pk) if user.get_deferred_fields() else user


class RegisterApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "register"

    @extend_schema(request=s.RegisterInput, responses={201: s.RegisterOutput}, tags=["accounts"])
    def post(self, request: Request) -> Response:
        user, token = user_register(**_input(s.RegisterInput, request))
        return Response({"username": user.username, "token": token}, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "login"

    @extend_schema(
        request=s.TokenInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="Log in. Repeated failures for one username lock it for a growing delay "
        "(429 `throttled` with `Retry-After`), whether or not the account exists.",
    )
    def post(self, request: Request) -> Response:
        return Response({"token": token_obtain(**_input(s.TokenInput, request))})


class TokenRotateApi(APIView):
    throttle_scope = "revoke"

    @extend_schema(
        request=s.TokenRotateInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="A new token (needs the current password); the one used for this request "
        "stops working.",
    )
    def post(self, request: Request) -> Response:
        data = _input(s.TokenRotateInput, request)
        return Response(
            {"token": token_rotate(user=_user(request), current_password=data["current_password"])}
        )


class LogoutApi(APIView):
    # Never throttled: whatever a stolen token has spent, its owner can still revoke it (a
    # token can log out once; without one this answers 401 before any work).
    throttle_classes: list = []

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="The token no longer works.")},
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        token_revoke(user=_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeApi(APIView):
    throttle_scope = "revoke"

    @extend_schema(
        request=s.PasswordChangeInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="Needs the current password; every token is revoked and a fresh one returned.",
    )
    def post(self, request: Request) -> Response:
        data = _input(s.PasswordChangeInput, request)
        key = password_change(
            user=_user(request),
            current_password=data["current_password"],
            new_password=data["password"],
        )
        return Response({"token": key})


class PasswordResetApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "account"

    @extend_schema(
        request=s.PasswordResetInput,
        responses={202: s.AcceptedOutput},
        tags=["accounts"],
        description="Mails a signed, expiring reset link, shortly after the answer, to each "
        "active account that verified this address (an unverified address never gets one). "
        "The answer is the same whether or not one has it.",
    )
    def post(self, request: Request) -> Response:
        password_reset_request(**_input(s.PasswordResetInput, request))
        return Response({"detail": RESET_ACCEPTED}, status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "login"

    @extend_schema(
        request=s.PasswordResetConfirmInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="Sets the new password from a reset link's `uid` and `token`; every token "
        "is revoked and a fresh one returned.",
    )
    def post(self, request: Request) -> Response:
        data = _input(s.PasswordResetConfirmInput, request)
        key = password_reset_confirm(
            uid=data["uid"], token=data["token"], new_password=data["password"]
        )
        return Response({"token": key})


class MeApi(APIView):
    throttle_scope = {"GET": "reads", "PATCH": "account", "DELETE": "account"}

    @extend_schema(responses={200: s.MeOutput}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        return Response(s.MeOutput(_current(request)).data)

    @extend_schema(
        request=s.MeUpdateInput,
        responses={200: s.MeOutput},
        tags=["accounts"],
        description='Change your e-mail address (`""` for none), with `current_password`. A '
        "new address is mailed a signed verification link; no other mail (a password reset "
        "neither) goes to it until the link is opened. At most "
        "`FACEDOWN_EMAIL_VERIFY_PER_ADDRESS` verification mails go to one address a day; past "
        "that, 429 `throttled` and nothing changes.",
    )
    def patch(self, request: Request) -> Response:
        user = account_update(user=_user(request), **_input(s.MeUpdateInput, request))
        return Response(s.MeOutput(user).data)

    @extend_schema(
        request=s.AccountDeleteInput,
        responses={
            204: OpenApiResponse(description="The account is closed."),
            400: OpenApiResponse(description="validation_error: the password is not correct."),
        },
        tags=["accounts"],
        description="Closes the account (needs the password): open matches are left, active "
        "ones forfeited; finished matches keep the seat under a placeholder name; the token "
        "stops working.",
    )
    def delete(self, request: Request) -> Response:
        account_delete(user=_user(request), **_input(s.AccountDeleteInput, request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.ExportOutput},
        tags=["accounts"],
        description="Your own data as JSON: the account, your matches and your seat's moves "
        "(a move's content once its match is over).",
    )
    def get(self, request: Request) -> Response:
        return Response(account_export(user=_user(request)))
