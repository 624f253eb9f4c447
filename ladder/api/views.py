"""Ladder endpoints: validate, call one service, render (docs/bots.md, "The ladder")."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import PROBLEM
from core.errors import NotFound
from games import dispatch
from ladder.api import serializers as s
from ladder.services import entries
from ladder.services.reads import entry_resource, ladder_board

TAGS = ["ladder"]


class LadderApi(APIView):
    throttle_scope = "reads"
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: s.LadderOutput, 404: PROBLEM},
        tags=TAGS,
        description=(
            "A game's ladder, public: entrants with their ladder rating (mu ± 2 sigma), the "
            "crosstable with a 95% Wilson interval per pair, the latest matches with their "
            "transcripts, and the standalone verifier's counts and failures."
        ),
    )
    def get(self, request: Request, game: str) -> Response:
        board = ladder_board(game)
        if board is None:
            raise NotFound(gettext_noop("Unknown game."))
        return Response(board)


def _pair_soon() -> None:
    # A new or changed entry may be paired at once rather than at the next periodic wave.
    transaction.on_commit(partial(dispatch.enqueue, "ladder_pair"), robust=True)


class LadderEntryApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "match_create", "DELETE": "moves"}
    token_scope = scopes.PLAY

    @extend_schema(
        responses={200: s.LadderEntryOutput, 404: PROBLEM},
        tags=TAGS,
        description="Your entry on this ladder (404 `not_on_ladder`): status, pause reason.",
    )
    def get(self, request: Request, game: str) -> Response:
        return Response(entry_resource(entries.entry_of(user=requester(request), game=game)))

    @extend_schema(
        request=s.LadderEntryInput,
        responses={200: s.LadderEntryOutput, 201: s.LadderEntryOutput, 400: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description=(
            "Enter the ladder, or change what your entry accepts: your standing consent to be "
            "paired under it until you leave. 201 when entered, 200 when changed; 409 "
            "`ladder_entries_exhausted` past FACEDOWN_LADDER_MAX_ENTRIES games."
        ),
    )
    def post(self, request: Request, game: str) -> Response:
        body: dict[str, Any] = validated(s.LadderEntryInput, request)
        entry, new = entries.entry_set(user=requester(request), game=game, **body)
        _pair_soon()
        code = status.HTTP_201_CREATED if new else status.HTTP_200_OK
        return Response(entry_resource(entry), status=code)

    @extend_schema(
        responses={200: s.LadderEntryOutput, 404: PROBLEM},
        tags=TAGS,
        description="Leave: not paired again; running ladder matches are played out.",
    )
    def delete(self, request: Request, game: str) -> Response:
        return Response(entry_resource(entries.entry_leave(user=requester(request), game=game)))


class LadderResumeApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=None,
        responses={200: s.LadderEntryOutput, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description="Resume an entry the server paused (409 `ladder_entry_not_paused`).",
    )
    def post(self, request: Request, game: str) -> Response:
        entry = entries.entry_resume(user=requester(request), game=game)
        _pair_soon()
        return Response(entry_resource(entry))
