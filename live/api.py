"""``POST /api/v1/accounts/stream-ticket``: a short-lived ticket for ``EventSource``."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.requester import requester
from accounts.scopes import READ, TokenGrant
from core.api.input import validated
from core.serializers import StrictRegexField, StrictSerializer
from live.auth import ticket_issue

STREAM_NAME = (
    r"^(me|(match|tournament):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
)


class StreamTicketInput(StrictSerializer):
    streams = serializers.ListField(
        child=StrictRegexField(STREAM_NAME, max_length=60),
        min_length=1,
        max_length=20,
        help_text='The streams the ticket opens: "me", "match:<match id>" and/or '
        '"tournament:<tournament id>".',
    )


class StreamTicketOutput(serializers.Serializer):
    ticket = serializers.CharField(help_text="Pass as `?ticket=` to the streams it names.")
    streams = serializers.ListField(child=serializers.CharField())
    expires_at = serializers.DateTimeField(help_text="Opens and re-opens its streams until then.")


class StreamTicketApi(APIView):
    throttle_scope = "reads"
    token_scope = READ  # a ticket opens streams, which read

    @extend_schema(
        request=StreamTicketInput,
        responses={
            200: StreamTicketOutput,
            400: OpenApiResponse(description="validation_error"),
            401: OpenApiResponse(description="not_authenticated"),
        },
        tags=["live"],
        description=(
            "A signed ticket for `EventSource`, which cannot send the token header: "
            "`GET /api/v1/matches/{id}/stream?ticket=…` or `GET /api/v1/accounts/me/stream"
            "?ticket=…`. It opens, and re-opens on reconnect, the streams it names for 60 s "
            "(FACEDOWN_LIVE_TICKET_SECONDS), until the token or web session that asked for it "
            "is revoked (then its streams end too); docs/live.md."
        ),
    )
    def post(self, request: Request) -> Response:
        data = validated(StreamTicketInput, request)
        # The ticket dies with the credential asking for it: this token, or the web session.
        token = request.auth.id if isinstance(request.auth, TokenGrant) else None
        ticket = ticket_issue(requester(request), data["streams"], token=token)
        return Response(StreamTicketOutput(ticket).data)
