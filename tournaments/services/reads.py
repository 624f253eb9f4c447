"""What anyone may read of a tournament: its settings, the standings, the crosstable, the
rounds, the events, the export. Built only from recorded (finished) tables: a match in
progress shows its players and its match id, never a score, a move or a ranking; the
organiser reads exactly what a spectator reads."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from core.csv_cells import csv_text
from core.errors import NotFound, NotSupported
from games.routers import from_replica, primary_reads
from games.services.rating_scale import from_ordinal
from tournaments.models import Entry, Tournament, TournamentBye, TournamentEvent, TournamentMatch
from tournaments.pairing.arena import FIRE_AFTER
from tournaments.pairing.export import TrfOverflow, trf_text
from tournaments.pairing.scoring import table_points
from tournaments.pairing.standings import crosstable, standings
from tournaments.pairing.types import Played
from tournaments.services.arena import arena_ranking
from tournaments.services.entries import rating_of, why_not
from tournaments.services.results import Results, results_of

SETTINGS = (
    "name",
    "game",
    "options",
    "seats",
    "format",
    "rounds",
    "time_control",
    "rated",
    "stand_in_bot",
    "withdrawn_games",
    "knockout_draws",
    "round_interval_days",
    "round_limit_seconds",
    "visibility",
    "min_rating",
    "max_rating",
    "min_rated_games",
    "min_account_days",
    "max_players",
    "featured",
    "status",
    "current_round",
    "arena_minutes",
    "streaks",
    "berserk",
    "admit_bots",
)
T = TypeVar("T")
TIMES = (
    "registration_opens_at",
    "registration_closes_at",
    "starts_at",
    "created_at",
    "finished_at",
    "ends_at",
)


def iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def finished_read(tournament_id: uuid.UUID, read: Callable[[], T]) -> T:
    """``read()`` from the read replica when it has the tournament finished (its results
    change no more) and may serve this reader (games/routers.py), else from the primary."""

    def settled() -> T | None:
        done = Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.FINISHED)
        return read() if done.exists() else None

    found = from_replica(settled)
    if found is not None:
        return found
    with primary_reads():
        return read()


def tournament_get(tournament_id: uuid.UUID | str) -> Tournament:
    try:
        return Tournament.objects.select_related("organiser").get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("No such tournament.") from exc


def may_read(tournament: Tournament, viewer: User | None) -> bool:
    """Invitation-only means private: besides a public tournament, one reads only what one
    organises or holds an entry of (invited, registered, withdrawn, disqualified); staff read
    every one."""
    if tournament.visibility == Tournament.Visibility.PUBLIC:
        return True
    if viewer is None or not viewer.is_authenticated:
        return False
    if (viewer.is_staff and viewer.is_active) or viewer.pk == tournament.organiser_id:
        return True
    return tournament.entries.filter(user=viewer).exists()


def tournament_readable(tournament_id: uuid.UUID | str, *, viewer: User | None) -> Tournament:
    """The tournament, if ``viewer`` may read it (``may_read``); else ``not_found``, the same
    answer as for a tournament that does not exist, so its existence does not leak."""
    tournament = tournament_get(tournament_id)
    if not may_read(tournament, viewer):
        raise NotFound("No such tournament.")
    return tournament


def _listed(viewer: User | None) -> QuerySet[Tournament]:
    """Public tournaments, and invitation-only ones the viewer is in or organises."""
    rows = Tournament.objects.select_related("organiser").annotate(
        players=Count(
            "entries", filter=Q(entries__joined=True, entries__status=Entry.Status.ACTIVE)
        )
    )
    visible = Q(visibility=Tournament.Visibility.PUBLIC)
    if viewer is not None and viewer.is_authenticated:
        visible |= Q(organiser=viewer) | Q(entries__user=viewer)
    return rows.filter(visible).distinct()


def tournament_list(
    *, viewer: User | None, status: str | None, game: str | None, mine: bool, limit: int = 200
) -> list[dict[str, Any]]:
    rows = _listed(viewer)
    if status:
        rows = rows.filter(status=status)
    if game:
        rows = rows.filter(game=game)
    if mine and viewer is not None and viewer.is_authenticated:
        rows = rows.filter(Q(organiser=viewer) | Q(entries__user=viewer, entries__joined=True))
    rows = rows.order_by("-featured", "-starts_at", "pk")[:limit]
    return [_summary(t, t.players) for t in rows]  # type: ignore[attr-defined]


def _summary(tournament: Tournament, players: int) -> dict[str, Any]:
    return {
        "id": str(tournament.pk),
        **{name: getattr(tournament, name) for name in SETTINGS},
        **{name: iso(getattr(tournament, name)) for name in TIMES},
        "players": players,
        "organiser": tournament.organiser.username,
    }


def tournament_detail(
    tournament_id: uuid.UUID | str, *, viewer: User | None, now: datetime | None = None
) -> dict[str, Any]:
    now = now or timezone.now()
    tournament = tournament_get(tournament_id)
    players = tournament.entries.filter(joined=True, status=Entry.Status.ACTIVE).count()
    you: dict[str, Any] = {
        "registered": False,
        "invited": False,
        "status": None,
        "may_join": False,
        "why_not": "not_authenticated",
        "is_organiser": False,
        "rating": None,
    }
    if viewer is not None and viewer.is_authenticated:
        entry = tournament.entries.filter(user=viewer).first()
        reason = why_not(tournament, viewer, now)
        you = {
            "registered": entry is not None and entry.joined,
            "invited": entry is not None and entry.invited and reason != "registered",
            "status": entry.status if entry is not None and entry.joined else None,
            "may_join": reason is None,
            "why_not": reason,
            "is_organiser": viewer.pk == tournament.organiser_id,
            "rating": from_ordinal(rating_of(viewer, tournament.game)[0]),
        }
    return {**_summary(tournament, players), "you": you}


def _status(results: Results, player: int) -> str:
    return results.entries[player].status


def tournament_standings(tournament_id: uuid.UUID | str) -> dict[str, Any]:
    tournament = tournament_get(tournament_id)
    if tournament.format == Tournament.Format.ARENA:
        return _arena_standings(tournament)
    results = results_of(tournament)
    rows = standings(results.entrants, results.played, results.byes)
    finished = tournament.round_rows.filter(finished_at__isnull=False).count()
    return {
        "round": finished,
        "rows": [
            {
                "rank": row.rank,
                "player": results.entries[row.player].user.username,
                "score": row.score,
                "buchholz": row.buchholz,
                "sonneborn_berger": row.sonneborn_berger,
                "direct": row.direct,
                "rating": from_ordinal(row.rating),
                "played": row.played,
                "byes": row.byes,
                "status": _status(results, row.player),
                "on_fire": False,
            }
            for row in rows
        ],
    }


def _arena_standings(tournament: Tournament) -> dict[str, Any]:
    """Points (tournaments/pairing/arena.py), then the rating at entry; no tie-break sums."""
    finished = tournament.round_rows.filter(finished_at__isnull=False).count()
    played = Counter(
        player
        for players in TournamentMatch.objects.filter(
            round__tournament=tournament, ranking__isnull=False
        ).values_list("players", flat=True)
        for player in players
    )
    return {
        "round": finished,
        "rows": [
            {
                "rank": rank,
                "player": entry.user.username,
                "score": float(entry.points),
                "buchholz": 0.0,
                "sonneborn_berger": 0.0,
                "direct": 0.0,
                "rating": from_ordinal(entry.rating),
                "played": played[entry.user_id],
                "byes": 0,
                "status": entry.status,
                "on_fire": tournament.streaks and entry.wins_in_row >= FIRE_AFTER,
            }
            for rank, entry in enumerate(arena_ranking(tournament), start=1)
        ],
    }


def tournament_crosstable(tournament_id: uuid.UUID | str) -> dict[str, Any]:
    tournament = tournament_get(tournament_id)
    results = results_of(tournament)
    if tournament.format == Tournament.Format.ARENA:
        order = [entry.user_id for entry in arena_ranking(tournament)]
    else:
        order = [row.player for row in standings(results.entrants, results.played, results.byes)]
    cells = crosstable(results.entrants, results.played)
    return {
        "players": [results.entries[p].user.username for p in order],
        "cells": [[list(cells.get(a, {}).get(b, [])) for b in order] for a in order],
    }


def _points(table_players: list[int], ranking: list[list[int]] | None, forfeited: list[int]) -> Any:
    if ranking is None:
        return None  # not finished: nothing of it is shown
    played = Played(
        round=0,
        players=tuple(table_players),
        ranking=tuple(tuple(group) for group in ranking),
        forfeited=tuple(forfeited),
    )
    return [table_points(played)[p] for p in table_players]


def tournament_rounds(tournament_id: uuid.UUID | str) -> list[dict[str, Any]]:
    tournament = tournament_get(tournament_id)
    names = dict(
        User.objects.filter(tournament_entries__tournament=tournament).values_list("pk", "username")
    )
    rounds = tournament.round_rows.order_by("number").prefetch_related("tables", "byes")
    return [
        {
            "number": row.number,
            "started_at": iso(row.started_at),
            "limit_at": iso(row.limit_at),
            "finished_at": iso(row.finished_at),
            "tables": [
                {
                    "match": str(table.match_id) if table.match_id else None,
                    "players": [names.get(p) for p in table.players],
                    "result": _points(table.players, table.ranking, table.forfeited),
                    "decided_by_stand_in": table.decided_by_stand_in,
                }
                for table in sorted(row.tables.all(), key=lambda t: t.pk)
            ],
            "byes": sorted(names.get(bye.user_id) or "" for bye in row.byes.all()),
        }
        for row in rounds
    ]


def tournament_events(tournament_id: uuid.UUID | str) -> list[dict[str, Any]]:
    tournament = tournament_get(tournament_id)
    rows: QuerySet[TournamentEvent] = tournament.events.select_related("author").order_by("seq")
    return [
        {
            "seq": event.seq,
            "type": event.type,
            "at": iso(event.at),
            "author": event.author.username if event.author is not None else None,
            "details": event.data,
        }
        for event in rows
    ]


def tournament_export_json(tournament_id: uuid.UUID | str) -> dict[str, Any]:
    tournament = tournament_get(tournament_id)
    players = tournament.entries.filter(joined=True, status=Entry.Status.ACTIVE).count()
    return {
        "tournament": _summary(tournament, players),
        "standings": tournament_standings(tournament_id),
        "crosstable": tournament_crosstable(tournament_id),
        "rounds": tournament_rounds(tournament_id),
    }


CSV_COLUMNS = (
    "rank",
    "player",
    "score",
    "buchholz",
    "sonneborn_berger",
    "direct",
    "rating",
    "played",
    "byes",
    "status",
)


def tournament_export_csv(tournament_id: uuid.UUID | str) -> str:
    """The standings as CSV; no cell can become a formula (``core.csv_cells``)."""
    rows = tournament_standings(tournament_id)["rows"]
    return csv_text(CSV_COLUMNS, ([row[name] for name in CSV_COLUMNS] for row in rows))


def tournament_export_trf(tournament_id: uuid.UUID | str) -> str:
    """The results so far as a tournament report file (TRF16 columns), the text arbiters'
    pairing programs read; written for tournaments of two seats only."""
    tournament = tournament_get(tournament_id)
    if tournament.seats != 2:
        raise NotSupported(
            gettext_noop("The tournament report file is written for tournaments of two seats.")
        )
    results = results_of(tournament)
    byes: dict[int, list[int]] = {}
    rows = TournamentBye.objects.filter(round__tournament=tournament)
    for number, player in rows.values_list("round__number", "user_id"):
        byes.setdefault(number, []).append(player)
    names = {player: entry.user.username for player, entry in results.entries.items()}
    try:
        return _trf(tournament, results, byes, names)
    except TrfOverflow:
        raise NotSupported(
            gettext_noop("This tournament's numbers do not fit the report file's columns.")
        ) from None


def _trf(
    tournament: Tournament, results: Results, byes: dict[int, list[int]], names: dict[int, str]
) -> str:
    return trf_text(
        name=tournament.name,
        # The report file carries the rating players read, as the standings do.
        entrants=[replace(e, rating=from_ordinal(e.rating)) for e in results.entrants],
        played=results.played,
        byes=byes,
        names=names,
        rounds=max([tournament.current_round or 0, *(p.round for p in results.played), *byes]),
    )
