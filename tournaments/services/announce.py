"""What a tournament's change tells its players, sent once the change has committed.

Carries only what every player of the tournament may read: names, round numbers, deadlines,
places. Never a move or a card: a stand-in's decision names the match, not what it played.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction

from tournaments.models import Entry, Tournament, TournamentMatch, TournamentRound

Listener = Callable[[list[dict[str, Any]]], None]
_listeners: list[Listener] = []


def announcement_listener_register(listener: Listener) -> None:
    """``listener(items)`` is called after commit with the change's announcements (the
    notification channels and the tournament stream register here)."""
    _listeners.append(listener)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


class Announcements:
    """Collected during one locked change; handed to the listeners on commit."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, kind: str, tournament: Tournament, at: datetime, **data: Any) -> None:
        self.items.append(
            {
                "kind": kind,
                "tournament": str(tournament.pk),
                "name": tournament.name,
                "at": _iso(at),
                **data,
            }
        )

    def round_started(
        self,
        tournament: Tournament,
        round_row: TournamentRound,
        table: TournamentMatch,
        entries: dict[int, Entry],
    ) -> None:
        names = {p: entries[p].user.username for p in table.players}
        for player in table.players:
            if entries[player].status != Entry.Status.ACTIVE or table.match_id is None:
                continue
            self.add(
                "tournament_round_started",
                tournament,
                round_row.started_at,
                user_id=player,
                match=str(table.match_id),
                round=round_row.number,
                opponents=[names[p] for p in table.players if p != player],
                deadline=_iso(round_row.limit_at),
            )

    def send_on_commit(self) -> None:
        if self.items:
            transaction.on_commit(partial(_deliver, list(self.items)), robust=True)
            self.items.clear()


def _deliver(items: list[dict[str, Any]]) -> None:
    for listener in list(_listeners):
        listener(items)
