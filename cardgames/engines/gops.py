"""GOPS — the Game of Pure Strategy (Goofspiel), slug ``gops``, rules version ``gops-1``.

From the Penguin Book of Card Games. 2-3 players, simultaneous sealed bids.

Components
    The prize stock: one suit (13 cards, A=1 … K=13, total 91), shuffled face down. Each player
    holds another full suit as bid cards, ranked the same way. A card is its value 1 … 13.

A turn (one step; N turns where N = ``num_cards``)
    1. The top prize card is turned up and added to the **pot**.
    2. Every player secretly chooses one bid card; the bids are revealed together.
    3. The highest bid takes the pot. All bid cards are spent.
    4. A tie for the highest bid is settled by ``tie_rule``. Ties below the highest bid never
       matter (bids 5, 5, 9: the 9 wins).
    5. A tied **last** turn: where the tie rule would carry the pot over, the pot goes to
       nobody, unless ``final_tie = to_game_winner``: then it goes to the player who strictly
       leads on the cards won so far (a tie there: nobody). Under ``tie_rule = discard`` it is
       discarded whatever ``final_tie`` says; under ``penguin`` with 3 players a two-way tie
       still gives it to the third player.

    The last turn, where everyone holds one card, is forced; it is an ordinary step.
    Score: the total value of the prize cards won. The highest score wins; equal top scores
    share the win. Ranking: by score, equal scores grouped; forfeited seats last.

Options
    ============= ====================================================================== =======
    option        values                                                                 default
    ============= ====================================================================== =======
    tie_rule      ``penguin`` — 2 players: a tie for highest carries the pot over to the  penguin
                  next turn. 3 players: if exactly two tie for highest the third player
                  takes the pot; if all three tie the pot carries over ·
                  ``carry`` — any tie for highest carries the pot over ·
                  ``discard`` — any tie for highest discards the pot
    final_tie     ``discard`` · ``to_game_winner`` (see rule 5)                           discard
    prize_order   ``random`` · ``ascending`` · ``descending``                             random
    num_cards     3 … 13: play with cards 1 … N in every suit                             13
    ============= ====================================================================== =======

Deal stream (``initial_state``)
    With ``prize_order = random`` exactly one draw: ``rng.shuffle`` of the list
    ``[1, 2, …, N]``; the result is the stock, its first element turned up first. With
    ``ascending`` / ``descending`` the stock is ``[1 … N]`` / ``[N … 1]`` and nothing is drawn.

Hidden information: the order of the prize stock (nothing else; hands follow from the public
bids, though a view shows only the requester's own hand).

State (JSON)
    ``game``, ``players``, ``options`` (filled), ``step`` (the open step, from 1), ``over``,
    ``stock`` (prize cards not yet turned up, in turn-up order — hidden), ``pot`` (turned-up
    prize cards now contested), ``hands`` (per seat, sorted), ``won`` (per seat, prize cards won
    in the order taken), ``discarded`` (prize cards nobody took), ``history`` (resolved turns:
    ``step``, ``pot``, ``bids``, ``winner``, ``outcome``).

Moves: ``{"card": n}`` with n in the seat's hand; every seat acts in every step.

View (``view(state, seat)``; seat None is a spectator)
    ``pot``, ``remaining_prizes`` (sorted, never in stock order), ``cards_left``, ``turn``,
    ``turns``, ``history`` (``step``, ``pot``, ``bids`` in seat order, ``winner``, ``outcome``),
    ``won`` (per seat), ``discarded``, ``scores``, ``over``, and ``hand`` (sorted) for a seat.

Resolution (``public``): ``step``, ``pot``, ``bids``, ``winner`` (seat or null), ``outcome``
— ``won`` (highest bid), ``third_player`` (penguin, 3 players, two-way tie), ``carried`` (the
pot stays for the next turn), ``discarded``, ``to_game_winner`` (a tied last turn given to the
leader) —, ``scores``, ``next_pot`` (the pot of the step now open; [] when over), ``over``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

from cardgames.engines.base import is_seat
from cardgames.engines.protocol import IllegalMove, Move, Resolution
from cardgames.engines.rng import DealRng
from cardgames.engines.sealed_bids import HandsState, SealedBidEngine
from cardgames.engines.states import clone

SLUG = "gops"

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "GOPS options",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "tie_rule": {
            "description": (
                "penguin: 2 players carry a tied pot over; 3 players give it to the third "
                "player when exactly two tie, carry it when all three tie. carry: any tie for "
                "highest carries the pot over. discard: any tie for highest discards it."
            ),
            "enum": ["penguin", "carry", "discard"],
            "default": "penguin",
        },
        "final_tie": {
            "description": (
                "A tied last turn that would carry the pot: discard it, or give it to the "
                "player leading on the other cards (to_game_winner; a tie there: nobody)."
            ),
            "enum": ["discard", "to_game_winner"],
            "default": "discard",
        },
        "prize_order": {
            "description": "Order of the prize stock.",
            "enum": ["random", "ascending", "descending"],
            "default": "random",
        },
        "num_cards": {
            "description": "Play with cards 1 … N in every suit.",
            "type": "integer",
            "minimum": 3,
            "maximum": 13,
            "default": 13,
        },
    },
}

TieOutcome = Literal["won", "third_player", "carried", "discarded", "to_game_winner"]


class GopsOptions(TypedDict):
    tie_rule: Literal["penguin", "carry", "discard"]
    final_tie: Literal["discard", "to_game_winner"]
    prize_order: Literal["random", "ascending", "descending"]
    num_cards: int


class Turn(TypedDict):
    """One resolved turn, as kept in ``history``."""

    step: int
    pot: list[int]
    bids: list[int]
    winner: int | None
    outcome: TieOutcome


class GopsState(HandsState):
    game: str
    options: GopsOptions
    stock: list[int]
    pot: list[int]
    won: list[list[int]]
    discarded: list[int]
    history: list[Turn]


class Gops(SealedBidEngine[GopsState]):
    slug = SLUG
    name = "GOPS"
    min_players = 2
    max_players = 3
    rules_version = "gops-1"
    options_schema = OPTIONS_SCHEMA

    # --- setup ---------------------------------------------------------------------------------

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> GopsState:
        opts = cast(GopsOptions, self.validate_options(options, players))
        n = opts["num_cards"]
        order = opts["prize_order"]
        if order == "random":
            stock = rng.shuffled(list(range(1, n + 1)))
        elif order == "ascending":
            stock = list(range(1, n + 1))
        else:
            stock = list(range(n, 0, -1))
        return {
            "game": SLUG,
            "players": players,
            "options": opts,
            "step": 1,
            "over": False,
            "stock": stock[1:],
            "pot": stock[:1],
            "hands": [list(range(1, n + 1)) for _ in range(players)],
            "won": [[] for _ in range(players)],
            "discarded": [],
            "history": [],
        }

    # --- acting --------------------------------------------------------------------------------

    def check_card(self, state: GopsState, seat: int, card: int) -> None:
        n = state["options"]["num_cards"]
        if not 1 <= card <= n:
            raise IllegalMove("card_out_of_range", card=card, high=n)

    def apply(self, state: GopsState, moves: Mapping[int, Move]) -> Resolution[GopsState]:
        new, bids = self.bids_played(state, moves)
        last_turn = not new["hands"][0]
        pot = list(new["pot"])
        winner, result = self._resolve(new, bids, last_turn)
        if winner is not None:
            new["won"][winner].extend(pot)
            new["pot"] = []
        elif result == "discarded":
            new["discarded"].extend(pot)
            new["pot"] = []
        step = new["step"]
        new["history"].append(
            {"step": step, "pot": pot, "bids": bids, "winner": winner, "outcome": result}
        )
        new["step"] = step + 1
        if last_turn:
            new["over"] = True
        else:
            new["pot"].append(new["stock"].pop(0))
        public = {
            "step": step,
            "pot": pot,
            "bids": bids,
            "winner": winner,
            "outcome": result,
            "scores": self.scores(new),
            "next_pot": list(new["pot"]),
            "over": new["over"],
        }
        return Resolution(state=new, public=public)

    def _resolve(
        self, state: GopsState, bids: list[int], last_turn: bool
    ) -> tuple[int | None, TieOutcome]:
        """Who takes the pot and why, from the bids (before anything moves)."""
        top = max(bids)
        leaders = [seat for seat, card in enumerate(bids) if card == top]
        if len(leaders) == 1:
            return leaders[0], "won"
        rule = state["options"]["tie_rule"]
        if rule == "discard":
            return None, "discarded"
        if rule == "penguin" and len(bids) == 3 and len(leaders) == 2:
            (third,) = (seat for seat in range(3) if seat not in leaders)
            return third, "third_player"
        if not last_turn:
            return None, "carried"
        if state["options"]["final_tie"] == "to_game_winner":
            totals = self.scores(state)
            best = max(totals)
            if totals.count(best) == 1:
                return totals.index(best), "to_game_winner"
        return None, "discarded"

    # --- reading -------------------------------------------------------------------------------

    def view(self, state: GopsState, seat: int | None) -> dict[str, Any]:
        n = state["options"]["num_cards"]
        result: dict[str, Any] = {
            "pot": list(state["pot"]),
            "remaining_prizes": sorted(state["stock"]),
            "cards_left": len(state["stock"]),
            "turn": min(len(state["history"]) + 1, n),
            "turns": n,
            "history": [
                {
                    "step": entry["step"],
                    "pot": list(entry["pot"]),
                    "bids": list(entry["bids"]),
                    "winner": entry["winner"],
                    "outcome": entry["outcome"],
                }
                for entry in state["history"]
            ],
            "won": [list(cards) for cards in state["won"]],
            "discarded": list(state["discarded"]),
            "scores": self.scores(state),
            "over": state["over"],
        }
        if seat is not None and is_seat(state, seat):
            result["hand"] = sorted(state["hands"][seat])
        return result

    def scores(self, state: GopsState) -> list[int]:
        return [sum(cards) for cards in state["won"]]

    def shuffle_hidden(self, state: GopsState, seat: int | None, rng: DealRng) -> GopsState:
        new = clone(state)
        rng.shuffle(new["stock"])
        return new


ENGINE = Gops()
