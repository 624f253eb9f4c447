"""Handing seats to the tournament's stand-in bot: an absent player's seats in running
matches, and at a round's limit every human seat still in play. The bot plays them to the
end of the match; the hand-over is a public ``seat_replaced`` event of the match."""

from __future__ import annotations

import uuid
from collections.abc import Container

from accounts.models import User
from games import events
from games.models import Match, Seat
from games.services.bot_seats import bot_options_validate
from games.services.unit_of_work import match_change
from tournaments.models import Tournament, TournamentMatch


def seats_to_stand_in(
    *,
    match_id: uuid.UUID | str,
    users: Container[int] | None,
    bot: str,
    operator: str,
    reason: str,
) -> int:
    """Hand the human seats of ``users`` (None: every human seat) of an active match to
    ``bot``; returns how many. Forfeited seats are already played by a stand-in."""
    handed = 0
    with match_change(match_id) as tx:
        if tx.match.status != Match.Status.ACTIVE:
            return 0
        for seat in tx.seats:
            if seat.user_id is None or seat.forfeited or seat.controlled_by == Seat.Controller.BOT:
                continue
            if users is not None and seat.user_id not in users:
                continue
            seat.controlled_by = Seat.Controller.BOT
            seat.bot = bot
            seat.bot_options = bot_options_validate(
                game=tx.match.game, name=bot, options=None, field="seat"
            )
            # The bot moves on commit if its seat is waiting in the open step.
            replaced = events.SEAT_REPLACED(
                {"seat": seat.index, "operator": operator, "reason": reason, "bot": bot}
            )
            tx.emit(replaced, step=tx.match.step)
            handed += 1
    return handed


def _running_tables(tournament: Tournament) -> list[TournamentMatch]:
    return list(
        TournamentMatch.objects.filter(
            round__tournament=tournament,
            match__isnull=False,
            ranking__isnull=True,
            match__status=Match.Status.ACTIVE,
        ).select_related("round")
    )


def absent_handed_over(tournament: Tournament, user: User, *, reason: str) -> int:
    """A player who left: their seats in the tournament's running matches go to the stand-in."""
    handed = 0
    for table in _running_tables(tournament):
        if user.pk in table.players:
            assert table.match_id is not None
            handed += seats_to_stand_in(
                match_id=table.match_id,
                users={user.pk},
                bot=tournament.stand_in_bot,
                operator=tournament.organiser.username,
                reason=reason,
            )
    return handed


def round_limit_handed_over(tournament: Tournament, number: int) -> list[TournamentMatch]:
    """At round ``number``'s limit: every human seat of its unfinished matches goes to the
    stand-in; the tables so decided are returned (their ``decided_by_stand_in`` is set)."""
    decided = []
    for table in _running_tables(tournament):
        if table.round.number != number:
            continue
        assert table.match_id is not None
        seats_to_stand_in(
            match_id=table.match_id,
            users=None,
            bot=tournament.stand_in_bot,
            operator=tournament.organiser.username,
            reason="the round's time limit",
        )
        if not table.decided_by_stand_in:
            table.decided_by_stand_in = True
            table.save(update_fields=["decided_by_stand_in"])
        decided.append(table)
    return decided
