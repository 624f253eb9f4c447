"""Ratings: openskill's Plackett-Luce model, per player and game, updated in the change that
finishes a rated match.

Every seat is a team of one; its rank is its group in the match's ranking (ties share a
rank, forfeited seats rank last). Humans start at openskill's defaults (mu 25, sigma 25/3).
Bots have fixed ratings per game (``bot_rating``), derived from the arena measurements in the
game's catalogue record, and are never updated: a match against bots rates its humans against
those values, and no bot row exists to become a hot spot.

How a bot's fixed rating is derived: the greedy bot of every game is the anchor (mu 25). Each
``Strength`` note gives a bot's win rate ``p`` against ``n - 1`` seats of the bot it was
measured against. Under Plackett-Luce with equal, fixed sigmas, a seat of mu ``a`` among
``n - 1`` seats of mu ``g`` wins with probability ``e^(a/c) / (e^(a/c) + (n-1) e^(g/c))``, with
``c = sqrt(2 (sigma^2 + beta^2))``, so ``a = g + c ln(p (n-1) / (1-p))``. Observed rates of 0
or 1 are replaced by ``(wins + 1/2) / (deals + 1)`` (the arena's deals count games). A bot with
no note rates as the anchor.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from openskill.models import PlackettLuce

from games import locks
from games.catalog import get_record
from games.events import MatchResult, RatingChange
from games.models import Move, Rating, Seat, SeatTenure
from games.services.rating_rules import new_opponents, one_pool, played_enough
from games.services.unit_of_work import MatchChange
from games.time_controls import TimeControl

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma
#: The anchor of every game's bot ratings.
ANCHOR_BOT = "greedy"
#: A bot's fixed uncertainty: small, as its strength is measured, not guessed.
BOT_SIGMA = 1.0


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate the leaderboard sorts by (openskill's ordinal)."""
    return mu - 3 * sigma


@cache
def bot_rating(game: str, bot: str) -> tuple[float, float]:
    """The fixed (mu, sigma) of ``bot`` in ``game`` (module docstring)."""
    record = get_record(game)
    note = record.bot_notes.get(bot) if record is not None else None
    strength = note.strength if note is not None else None
    if strength is None or bot == ANCHOR_BOT:
        return DEFAULT_MU, BOT_SIGMA
    against, _ = (
        bot_rating(game, strength.against) if strength.against != bot else (DEFAULT_MU, 0.0)
    )
    rate = strength.win_rate
    if not 0 < rate < 1:
        rate = (round(rate * strength.deals) + 0.5) / (strength.deals + 1)
    c = math.sqrt(2 * (BOT_SIGMA**2 + MODEL.beta**2))
    mu = against + c * math.log(rate * (strength.players - 1) / (1 - rate))
    return round(mu, 2), BOT_SIGMA


def _ranks(result: MatchResult, seats: list[Seat]) -> list[int]:
    """Each seat's rank (1 best; ties share one); forfeited seats rank last whatever the
    ranking says."""
    ranks = [0] * len(seats)
    place = 0
    for place, group in enumerate(result["ranking"], start=1):
        for seat in group:
            ranks[seat] = place
    last = max(place, 1) + 1
    for row in seats:
        if row.forfeited or ranks[row.index] == 0:
            ranks[row.index] = last
    return ranks


def substituted_seats(tx: MatchChange) -> frozenset[int]:
    """The seats that changed hands (games/services/substitutes.py): only a correspondence
    match can have any, so no other finish pays the query."""
    raw = tx.match.time_control
    if not raw or not TimeControl.of(raw).correspondence:
        return frozenset()
    found = SeatTenure.objects.filter(match_id=tx.match.pk).values_list("seat", flat=True)
    return frozenset(found)


def stood_in_seats(tx: MatchChange) -> frozenset[int]:
    """The human seats a stand-in bot plays (a tournament's absent player or round limit, an
    operator's replacement) whose account never made a move of its own in the match: the
    stand-in never plays a rated match for them. Only a match with such a seat pays the
    query. A seat a suspension handed over (``Seat.unrated``) counts for nobody, moved or
    not."""
    handed = [
        seat.index
        for seat in tx.seats
        if seat.user_id is not None and seat.controlled_by == Seat.Controller.BOT
    ]
    suspended = frozenset(seat.index for seat in tx.seats if seat.unrated)
    if not handed:
        return suspended
    own = (Move.Source.PLAYER, Move.Source.CONDITIONAL)
    stored = Move.objects.filter(match_id=tx.match.pk, seat__in=handed, source__in=own)
    moved = set(stored.values_list("seat", flat=True).distinct())
    moved |= {m.seat for m in tx.moves if m.source in own}
    return suspended | frozenset(index for index in handed if index not in moved)


def ratings_on_finish(tx: MatchChange, result: MatchResult) -> list[RatingChange] | None:
    """Record the finished match in its human players' rating rows (played, won) and, when
    the match is rated and counts (``rating_rules``), rate them: the changes, seat by seat,
    for the ``match_finished`` event (None for an unrated match or one without humans). Locks
    the rows (``locks``); the unit of work writes them with the rest of the change.

    A seat that changed hands, or that a stand-in bot played for an account that never moved
    in the match (``stood_in_seats``), counts for nobody: neither its players' records nor
    their ratings change, and the other seats are rated among themselves (their order in the
    match's ranking kept), if at least two are left: in a two-seat match, nobody is rated."""
    match = tx.match
    substituted = substituted_seats(tx) | stood_in_seats(tx)
    humans = [
        seat for seat in tx.seats if seat.user_id is not None and seat.index not in substituted
    ]
    if not humans:
        return None
    rows = locks.ratings_lock(
        match.game,
        [seat.user_id for seat in humans if seat.user_id is not None],
        mu=DEFAULT_MU,
        sigma=DEFAULT_SIGMA,
    )
    by_user = {row.user_id: row for row in rows}
    winners = set(result["winners"])
    new: dict[int, tuple[float, float]] = {}
    met: dict[int, int] | None = None
    # After the lock: a finish of the same players committed meanwhile is seen (rating_rules).
    counted = [seat for seat in tx.seats if seat.index not in substituted]
    if (
        match.rated
        and len(counted) >= 2
        and played_enough(tx, excluded=substituted)
        and one_pool(tx, excluded=substituted)
    ):
        met = new_opponents(tx, excluded=substituted)
    if met is not None:
        new = _rate(tx, result, by_user, counted)
    changes: list[RatingChange] = []
    for seat in humans:
        assert seat.user_id is not None
        row = by_user[seat.user_id]
        fields: dict[str, Any] = {
            "played": row.played + 1,
            "won": row.won + (seat.index in winners),
            "updated_at": tx.now,
        }
        if seat.index in new:
            mu, sigma = new[seat.index]
            changes.append(
                {
                    "seat": seat.index,
                    "before": round(row.ordinal, 2),
                    "after": round(ordinal(mu, sigma), 2),
                    "mu": round(mu, 4),
                    "sigma": round(sigma, 4),
                }
            )
            fields |= {
                "mu": mu,
                "sigma": sigma,
                "ordinal": ordinal(mu, sigma),
                "rated_matches": row.rated_matches + 1,
                "opponents": row.opponents + (met or {}).get(seat.index, 0),
            }
        tx.update_row(row, **fields)
    return changes if new else None


def _rate(
    tx: MatchChange, result: MatchResult, by_user: dict[int, Rating], counted: list[Seat]
) -> dict[int, tuple[float, float]]:
    """New (mu, sigma) of every human seat among ``counted``, by seat index."""
    teams: list[list[Any]] = []
    for seat in counted:
        if seat.user_id is not None:
            row = by_user[seat.user_id]
            teams.append([MODEL.rating(mu=row.mu, sigma=row.sigma)])
        else:
            mu, sigma = bot_rating(tx.match.game, seat.bot)
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    ranks = _ranks(result, tx.seats)
    rated = MODEL.rate(teams, ranks=[float(ranks[seat.index]) for seat in counted])
    return {
        seat.index: (float(team[0].mu), float(team[0].sigma))
        for seat, team in zip(counted, rated, strict=True)
        if seat.user_id is not None
    }
