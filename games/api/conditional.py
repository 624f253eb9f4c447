"""Conditional sealed moves: ``/matches/{id}/conditional-moves`` (games/services/conditional.py).

Own seat only: there is no way to name another seat, so anyone but a seat's holder is
``not_seated``, exactly as for a move.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import PROBLEM
from core.api.throttles import SIGNED_IN_THROTTLES
from games.api import serializers as s
from games.api.body_schemas import shape
from games.api.params import match_id_or_404
from games.services import bodies
from games.services.conditional import conditional_moves_read, conditional_moves_replace

_ERRORS = {400: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}


class MatchConditionalMovesApi(APIView):
    throttle_scope = {"GET": "reads", "PUT": "moves", "DELETE": "moves"}
    token_scope = scopes.PLAY
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        responses={200: shape(bodies.ConditionalMoves), 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=["matches"],
        description="Your seat's conditional moves, in the order they are tried. 403 "
        "not_seated for anyone but the seat's holder; 409 conditional_moves_unavailable "
        "unless the match is a correspondence match of GOPS or Hols der Geier under the "
        "sealed protocol.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        body = conditional_moves_read(match_id=match_id_or_404(match_id), user=requester(request))
        return Response(body)

    @extend_schema(
        request=s.ConditionalMovesInput,
        responses={200: shape(bodies.ConditionalMoves), **_ERRORS},
        tags=["matches"],
        description="Replace your seat's conditional moves (at most 64 rules). When a step "
        "opens, the first rule whose pot matches and whose card is still in your hand is "
        "played as your move, with a receipt; a played rule is used up. Rules set while a "
        "step is open apply to it if you have not moved. 409 conditional_moves_unavailable, "
        "match_not_active (not active, or your seat has forfeited); 403 not_seated.",
    )
    def put(self, request: Request, match_id: str) -> Response:
        data: dict[str, Any] = validated(s.ConditionalMovesInput, request)
        body = conditional_moves_replace(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            rules=[dict(rule) for rule in data["rules"]],
        )
        return Response(body)

    @extend_schema(
        request=None,
        responses={200: shape(bodies.ConditionalMoves), **_ERRORS},
        tags=["matches"],
        description="Clear your seat's conditional moves (the same as replacing them with []).",
    )
    def delete(self, request: Request, match_id: str) -> Response:
        body = conditional_moves_replace(
            match_id=match_id_or_404(match_id), user=requester(request), rules=[]
        )
        return Response(body)
