"""Hols der Geier (Raj, Beat the Buzzard), slug ``hols-der-geier``, rules version ``hols-1``.

Alex Randolph's sealed-bid game. 2-5 players, simultaneous sealed bids.

Components
    15 point cards: ten mice worth +1 … +10 and five vultures worth -1 … -5 (deck total +40).
    Each player holds the bid cards 1 … 15 (one set each, public knowledge).

A deal (15 turns; 12 in the two-player variant; each turn is one step)
    1. The top point card is turned face up and added to the **pot** (normally one card; more
       after an all-cancel turn).
    2. Every player secretly chooses one bid card from hand; all bids are revealed together.
    3. Direction: S = the sum of the pot. S ≥ 0 → **mouse mode** (the highest surviving bid
       takes the pot); S < 0 → **vulture mode** (the lowest surviving bid takes it).
    4. Cancellation: every bid value played by two or more players is struck out. Among the
       values played by exactly one player, the highest (mouse) or lowest (vulture) takes every
       card in the pot.
    5. **All-cancel** (no unique value): nobody takes the pot; it stays and the next point card
       is added to it. On the **last** turn of a deal the pot is removed and nobody scores it.
    6. Played bid cards are spent in every case. The last turn of a deal (everyone holds one
       card) is forced; it is an ordinary step.

    Two-player variant: before each deal 3 of each player's bid cards and 3 point cards are
    removed at random, unseen (a player may see their own removed bid cards); 12 turns.
    Several deals: hands are restored at the start of every deal, totals add up, steps keep
    counting, history entries carry their ``deal`` (from 1).

    Score: the sum of the point cards taken (mice plus, vultures minus), over all deals.

Winners and ranking (``final_tiebreak``; forfeited seats are left out of every comparison and
ranked last)
    ``cancel`` — seats on equal totals are ignored; the highest total held by exactly one seat
    wins; if every total is shared nobody wins (a draw). Ranking: the winner first, then the
    other seats by total, equal totals grouped.
    ``highest_mouse`` — the highest total wins; ties are broken by the highest single mouse card
    taken in any deal (0 without one); still tied → shared. Ranking by (total, highest mouse).
    ``shared`` — every seat on the highest total wins. Ranking by total, equal totals grouped.

Options
    ================== ============================================================= ========
    option             values                                                        default
    ================== ============================================================= ========
    two_player_variant ``null`` — automatic: on for 2 players, off otherwise ·       null
                       ``true`` — on (2 players only) · ``false`` — off
    final_tiebreak     ``cancel`` · ``highest_mouse`` · ``shared`` (above)           cancel
    deals              1 … 5 deals, totals added                                     1
    history            ``full`` — every resolved turn's bids stay readable ·         full
                       ``table_only`` — only each seat's last spent card (its pile)
                       is shown; views carry no history
    ================== ============================================================= ========

Deal stream (``initial_state``; everything is drawn up front)
    For deal d = 1 … ``deals`` in order:
      1. ``rng.shuffle`` of the point cards ``[-5, -4, -3, -2, -1, 1, 2, …, 10]`` (that
         ascending list); the first card of the result is turned up first.
      2. Two-player variant only: the first 3 cards of that shuffled deck are removed (the deal
         plays the other 12 in order); then for each seat s = 0, 1 in order ``rng.shuffle`` of
         ``[1, 2, …, 15]`` and the first 3 cards of the result are that seat's removed bids.
    Without the variant nothing else is drawn. ``apply`` never draws.

Hidden information: the order of the point deck (current and later deals); in the two-player
variant each player's removed bid cards (the owner may see their own for the current deal) and
the removed point cards (nobody). With ``history = table_only`` the other seats' earlier bids
of the deal (only each pile's top card is shown).

State (JSON)
    ``game``, ``players``, ``options`` (filled; ``two_player_variant`` may stay null),
    ``variant`` (resolved), ``deals``, ``deal`` (current, from 1), ``turns`` (per deal),
    ``step`` (the open step, from 1), ``over``, ``stock`` (point cards of this deal not yet
    turned up, in order — hidden), ``pot``, ``hands`` (per seat, sorted), ``removed_points``
    (this deal, sorted — hidden), ``removed_bids`` (per seat, this deal, sorted — hidden from
    the other seats), ``future`` (later deals: ``deck``, ``removed_points``, ``removed_bids`` —
    hidden), ``piles`` (per seat, last spent card this deal or null), ``taken`` (per seat,
    point cards taken, all deals), ``removed`` (pots removed by a last-turn all-cancel),
    ``history`` (resolved turns: ``step``, ``deal``, ``pot``, ``bids``, ``winner``, ``mode``,
    ``outcome``; kept in the state in every history mode, shown only in ``full``).

Moves: ``{"card": n}`` with n in the seat's hand; every seat acts in every step.

View (``view(state, seat)``; seat None is a spectator)
    ``deal``, ``deals``, ``turn`` (within the deal), ``turns``, ``pot``, ``mode`` (of the pot
    now contested: ``mouse`` / ``vulture``; null when over), ``remaining_prizes`` (sorted; in
    the variant it includes the removed point cards), ``removed_prizes`` (their count: 3 in the
    variant, else 0), ``two_player_variant``, ``history_mode``, ``history`` (``step``, ``deal``,
    ``pot``, ``bids``, ``winner``, ``mode``, ``outcome``; [] with ``table_only``), ``piles``
    (each seat's last spent card this deal, null before its first bid), ``taken`` (per seat,
    sorted), ``removed`` (pots removed, sorted), ``scores``, ``over``; for a seat also ``hand``
    (sorted) and, in the variant, its own ``removed_bids``. Never another seat's hand.

Resolution: ``public`` — ``step``, ``deal``, ``pot``, ``mode``, ``bids``, ``winner`` (seat or
null), ``outcome`` (``won``, ``cancelled``: all-cancel, the pot stays; ``removed``: all-cancel
on the last turn of a deal), ``scores``, ``next_deal`` (the deal now open; null when over),
``next_pot``, ``over``. ``private`` — when a new deal starts in the variant, each seat's new
``removed_bids``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

from cardgames.engines.base import is_seat
from cardgames.engines.messages import Reason
from cardgames.engines.options import check_options, check_seats, raise_if
from cardgames.engines.protocol import IllegalMove, Move, Outcome, Resolution
from cardgames.engines.ranking import SortKey, rank, top_seats, unique_top_seat
from cardgames.engines.rng import DealRng
from cardgames.engines.sealed_bids import HandsState, SealedBidEngine
from cardgames.engines.states import without_history

SLUG = "hols-der-geier"

POINT_CARDS: tuple[int, ...] = (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
BID_CARDS: tuple[int, ...] = tuple(range(1, 16))
REMOVED_IN_VARIANT = 3

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Hols der Geier options",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "two_player_variant": {
            "description": (
                "Remove 3 of each player's bid cards and 3 point cards at random, unseen; 12 "
                "turns. null means automatic: on for 2 players, off otherwise. true is allowed "
                "with 2 players only."
            ),
            "type": ["boolean", "null"],
            "default": None,
        },
        "final_tiebreak": {
            "description": (
                "cancel: equal totals are ignored, the highest unshared total wins (else a "
                "draw). highest_mouse: ties broken by the highest single mouse taken. shared: "
                "tied leaders share the win."
            ),
            "enum": ["cancel", "highest_mouse", "shared"],
            "default": "cancel",
        },
        "deals": {
            "description": "Number of deals; totals add up.",
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "default": 1,
        },
        "history": {
            "description": (
                "full: every resolved turn's bids stay readable. table_only: only each "
                "player's last spent card is shown."
            ),
            "enum": ["full", "table_only"],
            "default": "full",
        },
    },
}

Mode = Literal["mouse", "vulture"]


class HolsOptions(TypedDict):
    two_player_variant: bool | None
    final_tiebreak: Literal["cancel", "highest_mouse", "shared"]
    deals: int
    history: Literal["full", "table_only"]


class Deal(TypedDict):
    """One deal's draws: its point deck in turn-up order and, in the variant, what is removed."""

    deck: list[int]
    removed_points: list[int]
    removed_bids: list[list[int]]


class Turn(TypedDict):
    """One resolved turn, as kept in ``history``."""

    step: int
    deal: int
    pot: list[int]
    bids: list[int]
    winner: int | None
    mode: Mode
    outcome: Literal["won", "cancelled", "removed"]


class HolsState(HandsState):
    game: str
    options: HolsOptions
    variant: bool
    deals: int
    deal: int
    turns: int
    future: list[Deal]
    taken: list[list[int]]
    removed: list[int]
    history: list[Turn]
    # The open deal (set by ``_start_deal``).
    pot: list[int]
    stock: list[int]
    removed_points: list[int]
    removed_bids: list[list[int]]
    piles: list[int | None]


def _draw_deal(rng: DealRng, players: int, variant: bool) -> Deal:
    """One deal's draws, in the documented order."""
    deck = rng.shuffled(list(POINT_CARDS))
    removed_points: list[int] = []
    removed_bids: list[list[int]] = [[] for _ in range(players)]
    if variant:
        removed_points = sorted(deck[:REMOVED_IN_VARIANT])
        deck = deck[REMOVED_IN_VARIANT:]
        for seat in range(players):
            removed_bids[seat] = sorted(rng.shuffled(list(BID_CARDS))[:REMOVED_IN_VARIANT])
    return {"deck": deck, "removed_points": removed_points, "removed_bids": removed_bids}


def _start_deal(state: HolsState, drawn: Deal) -> None:
    deck = list(drawn["deck"])
    state["pot"] = deck[:1]
    state["stock"] = deck[1:]
    state["removed_points"] = list(drawn["removed_points"])
    state["removed_bids"] = [list(cards) for cards in drawn["removed_bids"]]
    state["hands"] = [
        [card for card in BID_CARDS if card not in removed] for removed in state["removed_bids"]
    ]
    state["piles"] = [None] * state["players"]


def pot_mode(pot: list[int]) -> Mode:
    """``mouse`` when the pot sums to 0 or more, else ``vulture``."""
    return "mouse" if sum(pot) >= 0 else "vulture"


def pot_winner(pot: list[int], bids: list[int]) -> int | None:
    """The seat whose unique bid takes the pot, or None when every bid value is shared."""
    counts = Counter(bids)
    unique = [card for card in bids if counts[card] == 1]
    if not unique:
        return None
    best = max(unique) if pot_mode(pot) == "mouse" else min(unique)
    return bids.index(best)


class HolsDerGeier(SealedBidEngine[HolsState]):
    slug = SLUG
    name = "Hols der Geier"
    min_players = 2
    max_players = 5
    rules_version = "hols-1"
    options_schema = OPTIONS_SCHEMA
    history_default = "full"

    # --- setup ---------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        filled, errors = check_options(self.validator, OPTIONS_SCHEMA, options)
        seat_errors = check_seats(SLUG, players, self.min_players, self.max_players)
        errors.update(seat_errors)
        if (
            not seat_errors
            and "options.two_player_variant" not in errors
            and filled.get("two_player_variant") is True
            and players != 2
        ):
            errors["options.two_player_variant"] = [Reason("hdg_two_player_variant")]
        raise_if(errors)
        return filled

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> HolsState:
        opts = cast(HolsOptions, self.validate_options(options, players))
        chosen = opts["two_player_variant"]
        variant = players == 2 if chosen is None else bool(chosen)
        deals = opts["deals"]
        drawn = [_draw_deal(rng, players, variant) for _ in range(deals)]
        # The open deal's keys are set by ``_start_deal`` (after these, as stored).
        state = cast(
            HolsState,
            {
                "game": SLUG,
                "players": players,
                "options": opts,
                "variant": variant,
                "deals": deals,
                "deal": 1,
                "turns": len(drawn[0]["deck"]),
                "step": 1,
                "over": False,
                "future": drawn[1:],
                "taken": [[] for _ in range(players)],
                "removed": [],
                "history": [],
            },
        )
        _start_deal(state, drawn[0])
        return state

    # --- acting --------------------------------------------------------------------------------

    def check_card(self, state: HolsState, seat: int, card: int) -> None:
        if card not in BID_CARDS:
            raise IllegalMove("card_out_of_range", card=card, high=15)
        if card in state["removed_bids"][seat]:
            raise IllegalMove("card_removed", card=card)

    def apply(self, state: HolsState, moves: Mapping[int, Move]) -> Resolution[HolsState]:
        new, bids = self.bids_played(state, moves)
        players = new["players"]
        new["piles"] = list(bids)
        last_turn = not new["hands"][0]
        pot = list(new["pot"])
        mode = pot_mode(pot)
        winner = pot_winner(pot, bids)
        result: Literal["won", "cancelled", "removed"]
        if winner is not None:
            result = "won"
            new["taken"][winner].extend(pot)
            new["pot"] = []
        elif last_turn:
            result = "removed"
            new["removed"].extend(pot)
            new["pot"] = []
        else:
            result = "cancelled"
        step = new["step"]
        deal = new["deal"]
        new["history"].append(
            {
                "step": step,
                "deal": deal,
                "pot": pot,
                "bids": bids,
                "winner": winner,
                "mode": mode,
                "outcome": result,
            }
        )
        new["step"] = step + 1
        private: dict[int, dict[str, Any]] = {}
        if not last_turn:
            new["pot"].append(new["stock"].pop(0))
        elif new["future"]:
            new["deal"] = deal + 1
            _start_deal(new, new["future"].pop(0))
            if new["variant"]:
                private = {
                    seat: {"removed_bids": list(new["removed_bids"][seat])}
                    for seat in range(players)
                }
        else:
            new["over"] = True
        public = {
            "step": step,
            "deal": deal,
            "pot": pot,
            "mode": mode,
            "bids": bids,
            "winner": winner,
            "outcome": result,
            "scores": self.scores(new),
            "next_deal": None if new["over"] else new["deal"],
            "next_pot": list(new["pot"]),
            "over": new["over"],
        }
        return Resolution(state=new, public=public, private=private)

    # --- reading -------------------------------------------------------------------------------

    def view(self, state: HolsState, seat: int | None) -> dict[str, Any]:
        full = state["options"]["history"] == "full"
        turns = state["turns"]
        left = len(state["hands"][0])
        result: dict[str, Any] = {
            "deal": state["deal"],
            "deals": state["deals"],
            "turn": turns if state["over"] else turns - left + 1,
            "turns": turns,
            "pot": list(state["pot"]),
            "mode": None if state["over"] else pot_mode(state["pot"]),
            "remaining_prizes": sorted(state["stock"] + state["removed_points"]),
            "removed_prizes": len(state["removed_points"]),
            "two_player_variant": state["variant"],
            "history_mode": state["options"]["history"],
            "history": [
                {
                    "step": entry["step"],
                    "deal": entry["deal"],
                    "pot": list(entry["pot"]),
                    "bids": list(entry["bids"]),
                    "winner": entry["winner"],
                    "mode": entry["mode"],
                    "outcome": entry["outcome"],
                }
                for entry in state["history"]
            ]
            if full
            else [],
            "piles": list(state["piles"]),
            "taken": [sorted(cards) for cards in state["taken"]],
            "removed": sorted(state["removed"]),
            "scores": self.scores(state),
            "over": state["over"],
        }
        if seat is not None and is_seat(state, seat):
            result["hand"] = sorted(state["hands"][seat])
            if state["variant"]:
                result["removed_bids"] = sorted(state["removed_bids"][seat])
        return result

    def scores(self, state: HolsState) -> list[int]:
        return [sum(cards) for cards in state["taken"]]

    def highest_mice(self, state: HolsState) -> list[int]:
        """Per seat, the highest single mouse taken in any deal (0 without one)."""
        return [max([card for card in cards if card > 0], default=0) for cards in state["taken"]]

    def outcome(self, state: HolsState, forfeited: frozenset[int] = frozenset()) -> Outcome | None:
        if not state["over"]:
            return None
        totals = self.scores(state)
        rule = state["options"]["final_tiebreak"]
        keys: list[SortKey] = [(total,) for total in totals]
        if rule == "highest_mouse":
            mice = self.highest_mice(state)
            keys = [(total, mouse) for total, mouse in zip(totals, mice, strict=True)]
        if rule == "cancel":
            winners = unique_top_seat(totals, forfeited)
            ranking = rank(keys, forfeited, leaders=winners)
        else:
            winners = top_seats(keys, forfeited)
            ranking = rank(keys, forfeited)
        return Outcome(scores=tuple(totals), winners=winners, ranking=ranking)

    def shuffle_hidden(self, state: HolsState, seat: int | None, rng: DealRng) -> HolsState:
        """Redraw the stock order, the removed point cards (swapped with unturned ones), other
        seats' removed bid cards (among their unplayed cards) and every later deal.

        With ``table_only`` the other seats' earlier bids are hidden too, but they are bound to
        the public winners and scores, so they are kept; a test checks that no view shows them.
        The result shares the unchanged ``history`` list with ``state`` (treat both as frozen).
        """
        new = without_history(state)
        new["history"] = state["history"]
        if new["over"]:
            return new
        pool = new["stock"] + new["removed_points"]
        rng.shuffle(pool)
        count = len(new["removed_points"])
        new["removed_points"] = sorted(pool[:count])
        new["stock"] = pool[count:]
        if new["variant"]:
            for other in range(new["players"]):
                if other == seat:
                    continue
                cards = new["hands"][other] + new["removed_bids"][other]
                rng.shuffle(cards)
                new["removed_bids"][other] = sorted(cards[:REMOVED_IN_VARIANT])
                new["hands"][other] = sorted(cards[REMOVED_IN_VARIANT:])
        new["future"] = [
            _draw_deal(rng, new["players"], new["variant"]) for _ in range(len(new["future"]))
        ]
        return new


ENGINE = HolsDerGeier()
