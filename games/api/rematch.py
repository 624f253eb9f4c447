"""``POST /matches/{id}/rematch``: the same match again, seats rotated."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.schema import IDEMPOTENCY_HEADER, PROBLEM
from games.api.body_schemas import shape
from games.api.idempotent import idempotent
from games.api.matches import match_response
from games.api.params import match_id_or_404
from games.services import bodies
from games.services.rematch import match_rematch


class MatchRematchApi(APIView):
    throttle_scope = "match_create"
    token_scope = scopes.PLAY

    @extend_schema(
        request=None,
        parameters=[IDEMPOTENCY_HEADER],
        responses={
            201: OpenApiResponse(shape(bodies.Match), description="The rematch, created now."),
            200: OpenApiResponse(shape(bodies.Match), description="The rematch asked for earlier."),
            403: PROBLEM,
            404: PROBLEM,
            409: PROBLEM,
            429: PROBLEM,
        },
        tags=["matches"],
        description=(
            "A seated player of a finished match asks for a rematch: same game, options, "
            "protocol, time control and rating, seats rotated by one (each participant one "
            "seat on), the same bots; the requester is seated accepted, the other players are "
            "invited. Asked again (by anyone), the same rematch answers 200. The finished "
            "match shows it as `rematch`. 403 not_seated, 409 match_not_finished."
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        rematch = match_rematch(match_id=match_id_or_404(match_id), user=requester(request))
        code = status.HTTP_201_CREATED if rematch.created else status.HTTP_200_OK
        response = match_response(request, rematch.match.id, code)
        response["Location"] = request.build_absolute_uri(f"/api/v1/matches/{rematch.match.id}")
        return response
