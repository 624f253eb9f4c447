"""Substitutes for abandoned seats: ``/matches/{id}/substitutes`` and the lobby's
``/substitutes`` (games/services/substitutes.py)."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.answers import answer_api
from core.api.input import validated
from core.api.schema import IDEMPOTENCY_HEADER, PROBLEM
from core.api.throttles import SIGNED_IN_THROTTLES
from core.errors import NotFound
from core.openapi import operation_id
from games.api import serializers as s
from games.api.body_schemas import shape
from games.api.idempotent import idempotent
from games.api.match_answers import match_answer_family
from games.api.params import match_id_or_404
from games.models import Match, SeatOffer
from games.services import bodies
from games.services.substitutes import (
    Answer,
    offer_answer,
    offer_make,
    offer_public,
    open_seats,
    substitutes_read,
)

_ERRORS = {400: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}


def _offer_id_or_404(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise NotFound(gettext_noop("No seat offer with this id in this match."))
    return int(raw)


def _answer(offer: SeatOffer, code: int = status.HTTP_200_OK) -> Response:
    match = Match.objects.only("game", "status").get(pk=offer.match_id)
    active = match.status == Match.Status.ACTIVE
    return Response(offer_public(offer, game=match.game, match_active=active), status=code)


class MatchSubstitutesApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "moves"}
    token_scope = scopes.PLAY
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        responses={200: shape(bodies.SubstitutePage), 404: PROBLEM},
        tags=["matches"],
        description="The match's seat offers (open ones and the latest closed ones, newest "
        "first) and who played which steps of each seat that changed hands. Public: anyone "
        "who may read the match.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = Match.objects.only("id", "game", "status").filter(pk=match_id_or_404(match_id))
        found = match.first()
        if found is None:
            raise NotFound(gettext_noop("No match with this id."))
        return Response(substitutes_read(found))

    @extend_schema(
        request=s.SeatOfferInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: shape(bodies.SeatOffer), **_ERRORS, 429: PROBLEM},
        tags=["matches"],
        description=(
            "Offer a seat whose player resigned, forfeited or timed out (forfeit policy) of an "
            "active correspondence match to a substitute: to `invitee`, or open to anyone in "
            "the lobby. A seated player who has not forfeited, or the match's creator, may "
            "offer (else 403 permission_denied). 409 seat_not_offerable, seat_offer_open (one "
            "open offer per seat), played_in_match (the invitee holds or held a seat of it), "
            "match_not_active."
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data: dict[str, Any] = validated(s.SeatOfferInput, request)
        offer = offer_make(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            seat=data["seat"],
            invitee=data.get("invitee"),
        )
        return _answer(offer, status.HTTP_201_CREATED)


def _offer_answered(
    request: Request, verb: str, data: dict[str, Any], ids: dict[str, str]
) -> Response:
    offer = offer_answer(
        match_id=match_id_or_404(ids["match_id"]),
        offer_id=_offer_id_or_404(ids["offer_id"]),
        user=requester(request),
        answer=cast(Answer, verb),
    )
    return _answer(offer)


SEAT_OFFERS = match_answer_family("SeatOffer", _offer_answered)
_ANSWER_RESPONSES = {
    200: OpenApiResponse(shape(bodies.SeatOffer), description="The offer after the answer."),
    403: PROBLEM,
    404: PROBLEM,
    409: PROBLEM,
}

SeatOfferAcceptApi = answer_api(
    SEAT_OFFERS,
    "accept",
    responses=_ANSWER_RESPONSES,
    description=(
        "Take the offered seat over: its hand and a fresh clock, from the next step (the "
        "stand-in finishes the step under way). 403 permission_denied (offered to someone "
        "else); 409 played_in_match (you hold or held a seat of this match), "
        "seat_offer_closed, wrong_phase (during a reveal phase: retry once it resolves)."
    ),
)
SeatOfferDeclineApi = answer_api(
    SEAT_OFFERS,
    "decline",
    responses=_ANSWER_RESPONSES,
    description="The invitee declines the offer: it ends (anyone else: 403 "
    "permission_denied). 409 seat_offer_closed.",
)
SeatOfferWithdrawApi = answer_api(
    SEAT_OFFERS,
    "withdraw",
    responses=_ANSWER_RESPONSES,
    description="Withdraw the offer: whoever may offer the seat may (else 403 "
    "permission_denied). 409 seat_offer_closed.",
)


class OpenSeatsApi(APIView):
    throttle_scope = "reads"
    # Public; a signed-in reader also sees the seats offered to them.
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id=operation_id("/api/v1/substitutes", "list"),
        responses={200: shape(bodies.SeatOfferPage), 401: PROBLEM},
        tags=["matches"],
        description="The lobby's seats to take over, newest first: open to anyone, and (signed "
        "in) the ones offered to you. Active matches only.",
    )
    def get(self, request: Request) -> Response:
        user = request.user if request.user is not None and request.user.is_authenticated else None
        return Response({"results": open_seats(user)})
