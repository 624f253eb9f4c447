"""A moderator's suspension from play (moderation/sanctions.py): the account's seats in its
running matches go to the match's stand-in bot, which plays them to the end. The hand-over
is a public ``seat_replaced`` event; the seat is marked ``unrated``, so it counts for nobody
when the match is rated (games/services/ratings.py): in a two-seat match, nobody is rated."""

from __future__ import annotations

from accounts.models import User
from games import events
from games.models import Match, Seat
from games.services.bot_decisions import stand_in_name
from games.services.bot_seats import bot_options_validate
from games.services.unit_of_work import match_change


def seats_to_stand_in_unrated(*, user: User, operator: str, reason: str) -> int:
    """Hand every seat ``user`` plays in an active match to that match's stand-in bot (each
    match in its own change); returns how many. Forfeited seats are a stand-in's already;
    a seat a bot already plays is only marked unrated."""
    handed = 0
    running = Seat.objects.filter(user=user, match__status=Match.Status.ACTIVE, forfeited=False)
    for match_id in running.values_list("match_id", flat=True).distinct().order_by("match_id"):
        with match_change(match_id) as tx:
            if tx.match.status != Match.Status.ACTIVE:
                continue
            for seat in tx.seats:
                if seat.user_id != user.pk or seat.forfeited:
                    continue
                seat.unrated = True
                if seat.controlled_by == Seat.Controller.BOT:
                    continue
                bot = stand_in_name(tx)
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
