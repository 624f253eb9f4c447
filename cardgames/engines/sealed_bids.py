"""Games where every seat bids one card of its hand at once, every step (GOPS, Hols der Geier).

What those engines share: who acts (everyone, simultaneously), the legal moves (the cards in
hand), the checks of a bid, and the timeout move (the lowest card). Each game adds its own
check of which cards exist (``check_card``) and everything about prizes and scoring.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import TypeVar

from cardgames.engines.base import BaseEngine, SeatedState, is_seat, json_moves
from cardgames.engines.cards import CardMove, card_moves, card_of
from cardgames.engines.protocol import IllegalMove, Move, ToAct
from cardgames.engines.states import clone


class HandsState(SeatedState):
    hands: list[list[int]]


HandsStateT = TypeVar("HandsStateT", bound=HandsState)


class SealedBidEngine(BaseEngine[HandsStateT]):
    def to_act(self, state: HandsStateT) -> ToAct | None:
        if state["over"]:
            return None
        return ToAct(seats=tuple(range(state["players"])), simultaneous=True)

    def legal_moves(self, state: HandsStateT, seat: int) -> list[Move]:
        if state["over"] or not is_seat(state, seat):
            return []
        return json_moves(card_moves(state["hands"][seat]))

    def check_move(self, state: HandsStateT, seat: int, move: Move) -> None:
        if state["over"]:
            raise IllegalMove("game_over")
        if not is_seat(state, seat):
            raise IllegalMove("seat_not_in_game", seat=seat)
        card = card_of(move)
        self.check_card(state, seat, card)
        if card not in state["hands"][seat]:
            raise IllegalMove("card_played", card=card)

    @abstractmethod
    def check_card(self, state: HandsStateT, seat: int, card: int) -> None:
        """IllegalMove unless ``card`` is a card this seat could ever hold in this game."""

    def bids_played(
        self, state: HandsStateT, moves: Mapping[int, Move]
    ) -> tuple[HandsStateT, list[int]]:
        """The state after every seat's bid left its hand (a copy), and the bids by seat."""
        self.checked_step(state, moves)
        new = clone(state)
        bids = [card_of(moves[seat]) for seat in range(new["players"])]
        for seat, card in enumerate(bids):
            new["hands"][seat].remove(card)
        return new, bids

    def timeout_move(self, state: HandsStateT, seat: int) -> Move:
        hand = state["hands"][seat]
        if state["over"] or not hand:
            raise IllegalMove("no_move_due")
        move: CardMove = {"card": min(hand)}
        return dict(move)
