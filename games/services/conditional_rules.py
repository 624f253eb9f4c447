"""What a conditional sealed move is, where it is offered, and which rule a step plays.

A rule reads "when the pot is one of ``pot`` (``null``: any pot), play ``card``". A pot is
matched by its value, the sum of its cards: a pot of one card by that card, a pot carried over
from a tied turn by the total of everything in it. Rules are tried in order; the first whose pot
matches and whose card is still in the seat's hand is played. No database, no clock: the
services (``conditional.py``) read and write the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from django.utils.translation import gettext_noop

from cardgames.engines import hols_der_geier
from core.errors import ValidationFailed
from games.time_controls import TimeControl

#: The most rules a seat may hold (a full GOPS suit, five times over, and then some).
RULES_LIMIT = 64
#: The most pot values one rule may list.
POTS_LIMIT = 64
#: The games that take conditional moves: every seat bids a card from hand against a pot.
GAMES = ("gops", "hols-der-geier")


class Rule(TypedDict):
    pot: list[int] | None
    card: int


def conditional_offered(game: str, protocol: str, time_control: Mapping[str, Any] | None) -> bool:
    """Whether a match takes conditional moves: a sealed-bid game under the sealed protocol
    (under commit-reveal the server would hold the move a seat is meant to commit to) with a
    correspondence clock (a day or more per step or bank). Only there: the job that plays them
    is enqueued on every step opening whatever the rules, a Celery enqueue that costs the move
    opening a step about as much CPU again as the move itself; nothing where steps are a day
    apart, half the throughput of a fast match (docs/design.md, "Conditional moves")."""
    if game not in GAMES or protocol != "sealed" or not time_control:
        return False
    return TimeControl.of(time_control).correspondence


def limits(game: str, options: Mapping[str, Any]) -> tuple[range, range]:
    """The cards a seat of ``game`` can ever bid, and the pot values the game can show."""
    if game == "gops":
        cards = int(options.get("num_cards", 13))
        return range(1, cards + 1), range(1, cards * (cards + 1) // 2 + 1)
    points = hols_der_geier.POINT_CARDS
    low = sum(card for card in points if card < 0)
    high = sum(card for card in points if card > 0)
    return range(1, max(hols_der_geier.BID_CARDS) + 1), range(low, high + 1)


def rules_validate(game: str, options: Mapping[str, Any], raw: Any) -> list[Rule]:
    """The rules as stored, or ``ValidationFailed`` naming the first bad field of each."""
    if not isinstance(raw, list):
        raise ValidationFailed({"rules": [gettext_noop("A list of rules.")]})
    if len(raw) > RULES_LIMIT:
        raise ValidationFailed({"rules": [gettext_noop("At most 64 rules.")]})
    cards, pots = limits(game, options)
    rules: list[Rule] = []
    errors: dict[str, list[str]] = {}
    for i, item in enumerate(raw):
        where = f"rules.{i}"
        if not isinstance(item, dict) or set(item) - {"pot", "card"} or "card" not in item:
            errors[where] = [gettext_noop('An object {"pot": […] or null, "card": n}.')]
            continue
        card, pot = item["card"], item.get("pot")
        if not _integer(card) or card not in cards:
            errors[f"{where}.card"] = [gettext_noop("A card this game deals to a seat.")]
        if pot is not None and (
            not isinstance(pot, list)
            or not 1 <= len(pot) <= POTS_LIMIT
            or not all(_integer(value) and value in pots for value in pot)
        ):
            errors[f"{where}.pot"] = [
                gettext_noop("null (any pot), or a list of pot values this game can show.")
            ]
        if not errors:
            rules.append({"pot": sorted(set(pot)) if pot is not None else None, "card": card})
    if errors:
        raise ValidationFailed(errors)
    return rules


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def rule_pick(
    rules: Sequence[Mapping[str, Any]], *, pot: Sequence[int], hand: Sequence[int]
) -> int | None:
    """The index of the first rule whose pot matches ``pot`` and whose card is in ``hand``."""
    value = sum(pot)
    for index, rule in enumerate(rules):
        wanted = rule.get("pot")
        if (wanted is None or value in wanted) and rule["card"] in hand:
            return index
    return None
