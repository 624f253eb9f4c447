"""Which finished matches count for ratings, and who the leaderboard lists: a rating is earned
in matches that were really played, against several players.

- **Played enough.** A match that ended with a forfeited seat (a resignation, a time-out
  forfeit) is unrated unless every human seat had at least ``FACEDOWN_RATING_MIN_TURNS`` turns
  with a move of its own (a move it sent; not a forced, timed-out or stand-in move). In a
  simultaneous game every step is a turn of every acting seat; in a turn-based game a turn is
  a run of steps one seat moves in alone (Memory's two flips are one turn). A match played to
  its end is always played enough.
- **Once per pair and window.** A match is unrated when two of its human players already had
  ``FACEDOWN_RATING_PAIR_LIMIT`` rated matches of this game together in the last
  ``FACEDOWN_RATING_PAIR_WINDOW_HOURS``: a second account cannot feed one player a stream of
  wins. Bots have fixed ratings, so playing one again feeds nobody.
- **One pool.** Bot accounts (programs, docs/programs.md) and people are rated apart: a
  match where both sit is unrated for all. The house bots, which have fixed ratings, may sit
  with either.
- **The leaderboard** lists a player after ``FACEDOWN_LEADERBOARD_MIN_MATCHES`` rated matches
  against at least ``FACEDOWN_LEADERBOARD_MIN_OPPONENTS`` different opponents (a bot counts as
  one opponent per bot name). ``Rating.opponents`` keeps that count.

An unrated finished match still counts in ``played`` and ``won``. Whether a match was rated is
what its ``match_finished`` event says (``ratings`` null or not), so the history is read from
the events; an archived match (docs/data.md) keeps its events elsewhere and is not read, so an
opponent met only before the archive horizon may count again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q

from accounts.models import User
from games.models import MatchEvent, Move, Seat
from games.services.unit_of_work import MatchChange


def played_enough(tx: MatchChange, *, excluded: frozenset[int] = frozenset()) -> bool:
    """False when a seat forfeited and a human seat (but ``excluded``) had fewer than the
    minimum of turns."""
    humans = [
        seat.index for seat in tx.seats if seat.user_id is not None and seat.index not in excluded
    ]
    if not tx.forfeited or not humans:
        return True
    minimum = int(settings.FACEDOWN_RATING_MIN_TURNS)
    stored = Move.objects.filter(match_id=tx.match.pk).values_list("step", "seat", "source")
    sent = [(m.step, m.seat, m.source) for m in tx.moves]  # in this change, not written yet
    turns = seat_turns([*stored, *sent])
    return all(turns.get(seat, 0) >= minimum for seat in humans)


def one_pool(tx: MatchChange, *, excluded: frozenset[int] = frozenset()) -> bool:
    """False when the match's players (but ``excluded`` seats') mix bot accounts and people
    (one query, at the finish of a match with two players or more)."""
    users = [
        seat.user_id for seat in tx.seats if seat.user_id is not None and seat.index not in excluded
    ]
    if len(users) < 2:
        return True
    kinds = set(User.objects.filter(pk__in=users).values_list("is_bot", flat=True))
    return len(kinds) == 1


def seat_turns(moves: Iterable[tuple[int, int, str]]) -> dict[int, int]:
    """Each seat's turns with a move of its own, from (step, seat, source) triples: every step
    it sent a move in, except that consecutive steps it alone moved in are one turn (a
    turn-based game's turn may take several steps, as Memory's two flips)."""
    by_step: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for step, seat, source in moves:
        by_step[step].append((seat, source))
    turns: dict[int, int] = defaultdict(int)
    previous_alone: int | None = None
    for step in sorted(by_step):
        movers = by_step[step]
        alone = movers[0][0] if len(movers) == 1 else None
        for seat, source in movers:
            if source == Move.Source.PLAYER and (alone is None or alone != previous_alone):
                turns[seat] += 1
        previous_alone = alone
    return dict(turns)


def _rated(match_ref: Any) -> Exists:
    return Exists(
        MatchEvent.objects.filter(
            match_id=match_ref, type="match_finished", data__ratings__0__isnull=False
        )
    )


def _together(game: str, user_id: int, other: Q) -> Any:
    """The rated matches of ``game`` in which ``user_id`` sat with the seat ``other``."""
    return Seat.objects.filter(other, match__game=game, match__seats__user_id=user_id).filter(
        _rated(OuterRef("match_id"))
    )


def pair_history(tx: MatchChange, a: int, b: int) -> tuple[int, bool]:
    """(rated matches of this game that users ``a`` and ``b`` played together within the
    window, whether they ever had one)."""
    since = tx.now - timedelta(hours=float(settings.FACEDOWN_RATING_PAIR_WINDOW_HOURS))
    found = _together(tx.match.game, a, Q(user_id=b)).aggregate(
        recent=Count("match_id", filter=Q(match__finished_at__gte=since)),
        ever=Count("match_id"),
    )
    return int(found["recent"]), bool(found["ever"])


def met_bot_before(tx: MatchChange, user_id: int, bot: str) -> bool:
    return bool(_together(tx.match.game, user_id, Q(bot=bot, user__isnull=True)).exists())


def new_opponents(
    tx: MatchChange, *, excluded: frozenset[int] = frozenset()
) -> dict[int, int] | None:
    """For a match that may be rated: each human seat's (but ``excluded``) number of opponents
    it never had in a rated match of this game before. None when a pair of its humans reached
    the pair limit."""
    limit = int(settings.FACEDOWN_RATING_PAIR_LIMIT)
    humans = [seat for seat in tx.seats if seat.user_id is not None and seat.index not in excluded]
    new = {seat.index: 0 for seat in humans}
    for i, seat in enumerate(humans):
        assert seat.user_id is not None
        for other in humans[i + 1 :]:
            assert other.user_id is not None
            recent, ever = pair_history(tx, seat.user_id, other.user_id)
            if recent >= limit:
                return None
            if not ever:
                new[seat.index] += 1
                new[other.index] += 1
        for bot in {
            s.bot for s in tx.seats if s.user_id is None and s.bot and s.index not in excluded
        }:
            if not met_bot_before(tx, seat.user_id, bot):
                new[seat.index] += 1
    return new
