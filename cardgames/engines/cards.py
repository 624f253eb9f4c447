"""Moves of the sealed-bid card games: ``{"card": n}``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from cardgames.engines.protocol import IllegalMove


class CardMove(TypedDict):
    card: int


def card_of(move: object) -> int:
    """The card of a ``{"card": n}`` move; IllegalMove for any other shape."""
    if not isinstance(move, Mapping) or set(move) != {"card"}:
        raise IllegalMove("card_move_shape")
    card = move["card"]
    if isinstance(card, bool) or not isinstance(card, int):
        raise IllegalMove("card_not_integer")
    return card


def card_moves(hand: Sequence[int]) -> list[CardMove]:
    return [{"card": card} for card in sorted(hand)]
