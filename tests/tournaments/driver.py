"""Playing a tournament's matches to the end through games' services, with a controlled clock
for the tournament's own times: human seats play a seeded random legal move, bot seats (the
stand-in) are run as their jobs would run them."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.catalog import get_engine
from games.models import Match, Seat
from games.services.bot_seats import bot_moves_play
from games.services.moves import move_submit
from tournaments.models import Tournament
from tournaments.services.create import tournament_create
from tournaments.services.entries import tournament_join
from tournaments.services.lifecycle import round_check, tournament_start

GOPS = {"game": "gops", "options": {"num_cards": 3}, "seats": 2}
HOLS = {"game": "hols-der-geier", "options": {}, "seats": 4}


def users(count: int, prefix: str = "p") -> list[User]:
    return [
        User.objects.create_user(username=f"{prefix}{i:02d}", password="correct-horse-battery")
        for i in range(count)
    ]


def tournament(
    organiser: User, players: list[User], *, now: datetime | None = None, **fields: Any
) -> Tournament:
    now = now or timezone.now()
    settings = {
        "name": "Test cup",
        "format": "swiss",
        "rounds": 3,
        "round_limit_seconds": 7 * 24 * 3600,
        "starts_at": now + timedelta(days=1),
        **GOPS,
        **fields,
    }
    created = tournament_create(organiser=organiser, now=now, **settings)
    for user in players:
        tournament_join(tournament_id=created.pk, user=user, now=now)
    return created


def running_matches(tournament_id: Any) -> list[Match]:
    return list(
        Match.objects.filter(
            tournament_table__round__tournament_id=tournament_id, status=Match.Status.ACTIVE
        )
    )


def play_step(match: Match, rng: random.Random) -> None:
    """Every seat the open step waits for moves once: players a random legal move, bots
    through their job."""
    engine = get_engine(match.game)
    assert engine is not None
    bots = False
    for seat in Seat.objects.filter(match=match).select_related("user"):
        if not seat.awaited_in(match):
            continue
        if seat.controlled_by == Seat.Controller.BOT:
            bots = True
            continue
        legal = engine.legal_moves(match.state, seat.index)
        move_submit(match_id=match.id, user=seat.user, step=match.step, move=rng.choice(legal))
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return
    if bots:
        bot_moves_play(match_id=match.id, step=match.step)


def play_matches(tournament_id: Any, rng: random.Random, *, only: set[Any] | None = None) -> None:
    """Play the tournament's running matches (or those in ``only``) to the end."""
    for _ in range(200):
        matches = [m for m in running_matches(tournament_id) if only is None or m.pk in only]
        if not matches:
            return
        for match in matches:
            play_step(match, rng)
    raise AssertionError("the matches did not end")


def play_out(tournament_id: Any, *, now: datetime, seed: int = 1, rounds: int = 30) -> Tournament:
    """Start it, then play every round and let the round check move on, to the end."""
    rng = random.Random(seed)
    tournament_start(tournament_id=tournament_id, now=now)
    for _ in range(rounds):
        row = Tournament.objects.get(pk=tournament_id)
        if row.status == Tournament.Status.FINISHED:
            return row
        play_matches(tournament_id, rng)
        now += timedelta(hours=1)
        round_check(tournament_id=tournament_id, now=now)
    raise AssertionError("the tournament did not finish")
