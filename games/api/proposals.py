"""Pause and abort by agreement: ``/matches/{id}/proposals`` (games/services/proposals.py)."""

from __future__ import annotations

from typing import Any, cast

from django.utils import timezone
from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
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
from games.api import serializers as s
from games.api.body_schemas import shape
from games.api.idempotent import idempotent
from games.api.match_answers import match_answer_family
from games.api.params import match_id_or_404
from games.models import Match, Proposal
from games.services import bodies
from games.services.proposals import (
    Answer,
    proposal_answer,
    proposal_make,
    proposal_public,
    proposals_read,
)

_ERRORS = {400: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}


def _proposal_id_or_404(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise NotFound(gettext_noop("No proposal with this id in this match."))
    return int(raw)


def _answer(proposal: Proposal, code: int = status.HTTP_200_OK) -> Response:
    return Response(proposal_public(proposal, timezone.now()), status=code)


class MatchProposalsApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "moves"}
    token_scope = scopes.PLAY
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        responses={200: shape(bodies.ProposalPage), 404: PROBLEM},
        tags=["matches"],
        description="The match's open proposal and its latest closed ones, newest first. "
        "Public: anyone who may read the match.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = Match.objects.only("id", "status").filter(pk=match_id_or_404(match_id)).first()
        if match is None:
            raise NotFound(gettext_noop("No match with this id."))
        return Response({"results": proposals_read(match, timezone.now())})

    @extend_schema(
        request=s.ProposalInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: shape(bodies.Proposal), **_ERRORS, 429: PROBLEM},
        tags=["matches"],
        description=(
            "A seated player proposes a pause until `until` (correspondence matches whose "
            "time control allows pauses, else 409 pause_not_allowed) or an abort. Every other "
            "seated human must accept within 48 hours. 409 proposal_open (one at a time), "
            "no_one_to_ask (no other seated human), match_not_active; 403 not_seated; 429 "
            "proposals_exhausted (FACEDOWN_PROPOSALS_PER_HOUR proposals of one seat in one "
            "match in an hour, withdrawn ones counted)."
        ),
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data: dict[str, Any] = validated(s.ProposalInput, request)
        proposal = proposal_make(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            kind=data["kind"],
            until=data.get("until"),
        )
        return _answer(proposal, status.HTTP_201_CREATED)


def _proposal_answered(
    request: Request, verb: str, data: dict[str, Any], ids: dict[str, str]
) -> Response:
    proposal = proposal_answer(
        match_id=match_id_or_404(ids["match_id"]),
        proposal_id=_proposal_id_or_404(ids["proposal_id"]),
        user=requester(request),
        answer=cast(Answer, verb),
    )
    return _answer(proposal)


PROPOSALS = match_answer_family("Proposal", _proposal_answered)
_ANSWER_RESPONSES = {
    200: OpenApiResponse(shape(bodies.Proposal), description="The proposal after the answer."),
    403: PROBLEM,
    404: PROBLEM,
    409: PROBLEM,
}

ProposalAcceptApi = answer_api(
    PROPOSALS,
    "accept",
    responses=_ANSWER_RESPONSES,
    description=(
        "Accept the open proposal; the last acceptance makes it take effect (the match "
        "pauses, or is aborted). 409 already_answered, proposal_closed (answered or "
        "expired)."
    ),
)
ProposalDeclineApi = answer_api(
    PROPOSALS,
    "decline",
    responses=_ANSWER_RESPONSES,
    description="Decline the open proposal: it ends. 409 already_answered, proposal_closed.",
)
ProposalWithdrawApi = answer_api(
    PROPOSALS,
    "withdraw",
    responses=_ANSWER_RESPONSES,
    description="Its proposer withdraws the open proposal (anyone else: 403 "
    "permission_denied). 409 proposal_closed.",
)
