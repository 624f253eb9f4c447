"""Tournament endpoints: validate, call one service, render (docs/api.md, "Tournaments")."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from django.utils.translation import gettext_noop
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import IDEMPOTENCY_HEADER, PROBLEM
from core.errors import NotFound
from core.openapi import operation_id
from games.api.idempotent import idempotent
from games.api.params import game_slugs, param_choice, param_flag
from games.catalog import engines
from tournaments.api import serializers as s
from tournaments.models import Entry, Tournament
from tournaments.services import entries, lifecycle, reads
from tournaments.services.arena_berserk import arena_berserk
from tournaments.services.create import tournament_create

TAGS = ["tournaments"]
F = TypeVar("F", bound=Callable[..., Any])


def tournament_id_or_404(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise NotFound(gettext_noop("No such tournament.")) from None


def readable_or_404(request: Request, raw: str) -> uuid.UUID:
    """The tournament's id, if the requester may read it: an invitation-only tournament is
    ``not_found`` for a stranger, as a missing one (``reads.tournament_readable``)."""
    tid = tournament_id_or_404(raw)
    reads.tournament_readable(tid, viewer=requester(request))
    return tid


def _detail(request: Request, tournament_id: Any, code: int = status.HTTP_200_OK) -> Response:
    body = reads.tournament_detail(tournament_id, viewer=requester(request))
    return Response(body, status=code)


def _entry(entry: Entry) -> dict[str, Any]:
    return {
        "player": entry.user.username,
        "status": entry.status,
        "invited": entry.invited,
        "joined": entry.joined,
    }


class TournamentListApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "match_create"}
    token_scope = scopes.TOURNAMENT

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=Tournament.Status.values),
            OpenApiParameter("game", str, enum=game_slugs(), description="A game's slug."),
            OpenApiParameter("mine", bool, description="Only those you organise or entered."),
        ],
        responses={200: s.TournamentPageOutput, 400: PROBLEM},
        tags=TAGS,
        operation_id=operation_id("/api/v1/tournaments", "list"),
        description="Public tournaments (and invitation-only ones you are in), featured first.",
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        found = reads.tournament_list(
            viewer=requester(request),
            status=param_choice(params, "status", Tournament.Status.values),
            game=param_choice(params, "game", [e.slug for e in engines()]),
            mine=param_flag(params, "mine"),
        )
        return Response({"results": found})

    @extend_schema(
        request=s.TournamentCreateInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.TournamentDetailOutput, 400: PROBLEM, 403: PROBLEM},
        tags=TAGS,
        description="Create a tournament in registration; you are its organiser.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.TournamentCreateInput, request)
        tournament = tournament_create(organiser=requester(request), **data)
        response = _detail(request, tournament.pk, status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/tournaments/{tournament.pk}")
        return response


class TournamentDetailApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.TournamentDetailOutput, 404: PROBLEM},
        tags=TAGS,
        description="The settings, the state, and what you may do (`you`).",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        return _detail(request, readable_or_404(request, tournament_id))


class _Action(APIView):
    """A POST by a player or the organiser that answers with the tournament's detail."""

    throttle_scope = "moves"
    token_scope = scopes.TOURNAMENT

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        raise NotImplementedError

    def post(self, request: Request, tournament_id: str) -> Response:
        tid = readable_or_404(request, tournament_id)
        self.act(request, tid)
        return _detail(request, tid)


def _action_schema(description: str) -> Callable[[F], F]:
    return extend_schema(
        request=None,
        responses={200: s.TournamentDetailOutput, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description=description,
    )


class TournamentJoinApi(_Action):
    @_action_schema(
        "Register. 403 `entry_refused` (its `why_not` names the condition), 409 "
        "`tournament_full`, `tournament_not_open`, `already_registered`."
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        entries.tournament_join(tournament_id=tournament_id, user=requester(request))


class TournamentWithdrawApi(_Action):
    @_action_schema(
        "Leave. Once running, your seats in running matches are played to the end by the "
        "stand-in bot, and you are not paired again. An arena: you are not paired again until "
        "you join again, and you play out the match at hand."
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        entries.tournament_withdraw(tournament_id=tournament_id, user=requester(request))


class TournamentBerserkApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.TOURNAMENT

    @extend_schema(
        request=s.BerserkInput,
        responses={200: s.TournamentDetailOutput, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description="Arena with berserk: halve your own bank in your running match of it "
        "before your first move, for one more point on a win. 409 `berserk_refused` otherwise.",
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        tid = readable_or_404(request, tournament_id)
        data = validated(s.BerserkInput, request)
        arena_berserk(tournament_id=tid, user=requester(request), match_id=data["match"])
        return _detail(request, tid)


class TournamentDeclineApi(_Action):
    @_action_schema(
        "Refuse the organiser's invitation. 409 `not_invited` without an open invitation."
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        entries.tournament_decline(tournament_id=tournament_id, user=requester(request))


class TournamentStartApi(_Action):
    @_action_schema("Organiser: start now, before `starts_at`.")
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        lifecycle.tournament_start(tournament_id=tournament_id, by=requester(request))


class TournamentPauseApi(_Action):
    @_action_schema(
        "Organiser: hold the tournament (no new round, the round limit waits). 409 "
        "`pause_not_allowed` unless its time control is correspondence and allows pauses."
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        lifecycle.tournament_pause(tournament_id=tournament_id, by=requester(request))


class TournamentResumeApi(_Action):
    @_action_schema("Organiser: go on after a pause.")
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        lifecycle.tournament_resume(tournament_id=tournament_id, by=requester(request))


class TournamentEndApi(_Action):
    @_action_schema(
        "Organiser: end now. In registration it is cancelled; running, it finishes with the "
        "standings of the finished matches."
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        return super().post(request, tournament_id)

    def act(self, request: Request, tournament_id: uuid.UUID) -> None:
        lifecycle.tournament_end(tournament_id=tournament_id, by=requester(request))


class TournamentPlayersApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.TOURNAMENT

    @extend_schema(
        request=s.PlayerAddInput,
        responses={
            201: s.EntryOutput,
            403: PROBLEM,
            404: PROBLEM,
            409: PROBLEM,
            429: PROBLEM,
        },
        tags=TAGS,
        description=(
            "Organiser: invite a player, in registration or to a running Swiss as a late "
            "player. Nobody is entered by someone else: the invitee is notified and joins "
            "(`POST /join`, under the entry conditions) or declines (`POST /decline`). 403 "
            "`invitation_refused` (the invitee's settings), 409 `already_invited`, 429 "
            "`invitations_exhausted`."
        ),
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        data = validated(s.PlayerAddInput, request)
        entry = entries.player_invite(
            tournament_id=readable_or_404(request, tournament_id),
            by=requester(request),
            username=data["username"],
        )
        return Response(_entry(entry), status=status.HTTP_201_CREATED)


class TournamentDisqualifyApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.TOURNAMENT

    @extend_schema(
        request=s.DisqualifyInput,
        responses={200: s.EntryOutput, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description=(
            "Organiser: remove a player. Their running matches are played to the end by the "
            "stand-in bot; their finished games stand; they are never paired again."
        ),
    )
    def post(self, request: Request, tournament_id: str, username: str) -> Response:
        data = validated(s.DisqualifyInput, request)
        entry = entries.player_disqualify(
            tournament_id=readable_or_404(request, tournament_id),
            by=requester(request),
            username=username,
            reason=data["reason"],
        )
        return Response(_entry(entry))


class TournamentStandingsApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.StandingsOutput, 404: PROBLEM},
        tags=TAGS,
        description="The standings after the finished matches, with the tie-breaks.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        tid = readable_or_404(request, tournament_id)
        return Response(reads.finished_read(tid, lambda: reads.tournament_standings(tid)))


class TournamentCrosstableApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.CrosstableOutput, 404: PROBLEM},
        tags=TAGS,
        description="Every player against every other, finished meetings only.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        return Response(reads.tournament_crosstable(readable_or_404(request, tournament_id)))


class TournamentRoundsApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.RoundOutput(many=True), 404: PROBLEM},
        tags=TAGS,
        operation_id=operation_id("/api/v1/tournaments/{tournament_id}/rounds", "list"),
        description="Each round's tables and byes; a table's result only once it is over.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        return Response(reads.tournament_rounds(readable_or_404(request, tournament_id)))


class TournamentEventsApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.TournamentEventOutput(many=True), 404: PROBLEM},
        tags=TAGS,
        operation_id=operation_id("/api/v1/tournaments/{tournament_id}/events", "list"),
        description="The organiser's and the system's actions, with their authors.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        return Response(reads.tournament_events(readable_or_404(request, tournament_id)))


class CsvRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, context: Any = None) -> bytes:
        if isinstance(data, str):
            return data.encode()
        return json.dumps(data).encode()  # a problem+json answer


class TrfRenderer(CsvRenderer):
    media_type = "text/plain"
    format = "trf"


class TournamentExportApi(APIView):
    throttle_scope = "reads"
    # ``?format=csv`` (or ``trf``) picks that renderer (DRF's documented format override).
    renderer_classes = [JSONRenderer, CsvRenderer, TrfRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["json", "csv", "trf"])],
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="The settings, standings, crosstable and rounds."
            ),
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="The standings, one row a player."
            ),
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR,
                description="A tournament report file (TRF16 columns; two-seat tournaments).",
            ),
            (400, "application/problem+json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="not_supported: a report file of more seats."
            ),
            (404, "application/problem+json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="not_found."
            ),
        },
        tags=TAGS,
        description="The results so far (finished matches only), as JSON, CSV (`?format=csv`) "
        "or, for two seats, a tournament report file (`?format=trf`).",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        tid = readable_or_404(request, tournament_id)
        if request.accepted_renderer.format == "csv":
            response = Response(reads.finished_read(tid, lambda: reads.tournament_export_csv(tid)))
            response["Content-Disposition"] = f'attachment; filename="tournament-{tid}.csv"'
            return response
        if request.accepted_renderer.format == "trf":
            response = Response(reads.finished_read(tid, lambda: reads.tournament_export_trf(tid)))
            response["Content-Disposition"] = f'attachment; filename="tournament-{tid}.trf"'
            return response
        return Response(reads.finished_read(tid, lambda: reads.tournament_export_json(tid)))
