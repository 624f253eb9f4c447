"""Account endpoints: each view validates its input, calls one service, and answers."""

from datetime import timedelta

from django.contrib.auth import logout
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts import serializers as s
from accounts.authentication import forget_cached_tokens
from accounts.bot_accounts import bot_account_make
from accounts.models import User
from accounts.requester import requester
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
from accounts.tokens import token_delete, token_issue, token_listed, tokens_of
from core.api.input import validated
from core.api.schema import PROBLEM

RESET_ACCEPTED = (
    "If an active account has this address, a reset link is on its way; "
    "it works once, for a limited time."
)


def _token_id(request: Request) -> int | None:
    """The access token of this request (None: the web session)."""
    grant = request.auth
    return grant.id if isinstance(grant, scopes.TokenGrant) else None


def _current(request: Request) -> User:
    """The request's user with every field as the database has it now: the token cache gives
    an identity whose other fields are deferred (``accounts.authentication``)."""
    user = requester(request)
    return User.objects.get(pk=user.pk) if user.get_deferred_fields() else user


class RegisterApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "register"

    @extend_schema(request=s.RegisterInput, responses={201: s.RegisterOutput}, tags=["accounts"])
    def post(self, request: Request) -> Response:
        user, token = user_register(**validated(s.RegisterInput, request))
        return Response({"username": user.username, "token": token}, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "login"

    @extend_schema(
        request=s.TokenInput,
        responses={200: s.AccessTokenCreatedOutput},
        tags=["accounts"],
        description="Log in: a new named access token (docs/programs.md). Repeated failures "
        "for one username lock it for a growing delay "
        "(429 `throttled` with `Retry-After`), whether or not the account exists.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.TokenInput, request)
        if "expires_in" in data:
            data["expires_in"] = timedelta(seconds=data["expires_in"])
        return Response(token_obtain(**data))


class TokenRotateApi(APIView):
    throttle_scope = "revoke"
    token_scope = scopes.ACCOUNT

    @extend_schema(
        request=s.TokenRotateInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="A new secret for the token of this request, same name, scopes and expiry "
        "(needs the current password); its old secret stops working. From the web session: a "
        "new token.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.TokenRotateInput, request)
        key = token_rotate(
            user=requester(request),
            token_id=_token_id(request),
            current_password=data["current_password"],
        )
        return Response({"token": key})


class LogoutApi(APIView):
    # Never throttled: whatever a stolen token has spent, its owner can still revoke it (a
    # token can log out once; without one this answers 401 before any work).
    throttle_classes: list = []
    token_scope = {"POST": scopes.READ}  # any token may end itself

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(
                description="The token of this request no longer works (the account's other "
                "tokens do); from the web session, the session ends."
            )
        },
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        token_id = _token_id(request)
        if token_id is None:
            logout(request)
        else:
            token_revoke(user=requester(request), token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "account"}
    token_scope = {"GET": scopes.ACCOUNT, "POST": scopes.ACCOUNT}

    @extend_schema(
        responses={200: s.AccessTokenOutput(many=True)},
        tags=["accounts"],
        description="Your access tokens, oldest first (never their secrets).",
    )
    def get(self, request: Request) -> Response:
        return Response(s.AccessTokenOutput(tokens_of(requester(request)), many=True).data)

    @extend_schema(
        request=s.AccessTokenInput,
        responses={201: s.AccessTokenCreatedOutput},
        tags=["accounts"],
        description="A new access token; its secret is in this answer only. At most 100 per "
        "account.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.AccessTokenInput, request)
        expires = data.get("expires_in")
        token, secret = token_issue(
            _current(request),
            name=data["name"],
            scopes=data["scopes"],
            expires_in=timedelta(seconds=expires) if expires is not None else None,
        )
        body = {"token": secret, **token_listed(token)}
        return Response(s.AccessTokenCreatedOutput(body).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    throttle_scope = "account"
    token_scope = scopes.ACCOUNT

    @extend_schema(
        responses={204: OpenApiResponse(description="The token no longer works.")},
        tags=["accounts"],
        description="Revokes one of your tokens: it is refused everywhere within a second, and "
        "the streams it opened end.",
    )
    def delete(self, request: Request, token_id: int) -> Response:
        token_delete(requester(request), token_id)
        forget_cached_tokens()
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotApi(APIView):
    throttle_scope = "account"
    token_scope = scopes.ACCOUNT

    @extend_schema(
        request=None,
        responses={200: s.MeOutput, 409: PROBLEM},
        tags=["accounts"],
        description="Makes this account a bot account, for good: only before it has played "
        "(409 `bot_refused` otherwise). Its tokens are replaced by none: create one with the "
        "`bot:play` scope (docs/programs.md).",
    )
    def post(self, request: Request) -> Response:
        return Response(s.MeOutput(bot_account_make(requester(request))).data)


class PasswordChangeApi(APIView):
    throttle_scope = "revoke"
    token_scope = scopes.ACCOUNT

    @extend_schema(
        request=s.PasswordChangeInput,
        responses={200: s.TokenOutput},
        tags=["accounts"],
        description="Needs the current password; every token is revoked and a fresh one returned.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.PasswordChangeInput, request)
        key = password_change(
            user=requester(request),
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
        password_reset_request(**validated(s.PasswordResetInput, request))
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
        data = validated(s.PasswordResetConfirmInput, request)
        key = password_reset_confirm(
            uid=data["uid"], token=data["token"], new_password=data["password"]
        )
        return Response({"token": key})


class MeApi(APIView):
    throttle_scope = {"GET": "reads", "PATCH": "account", "DELETE": "account"}
    token_scope = scopes.ACCOUNT

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
        user = account_update(user=requester(request), **validated(s.MeUpdateInput, request))
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
        account_delete(user=requester(request), **validated(s.AccountDeleteInput, request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportApi(APIView):
    throttle_scope = "reads"
    token_scope = {"GET": scopes.ACCOUNT}

    @extend_schema(
        responses={200: s.ExportOutput},
        tags=["accounts"],
        description="Your own data as JSON: the account, your matches and your seat's moves "
        "(a move's content once its match is over).",
    )
    def get(self, request: Request) -> Response:
        return Response(account_export(user=requester(request)))
