"""Xato (Áron Csathó, 2002), slug ``xato``, rules version ``xato-1``.

A memory game of drafting, hidden "life" cards and calling cards by name. 3-6 players.
Sequential turns with one simultaneous sealed step (choosing life cards); with
``strict_memory`` a second kind of simultaneous step (claims).

Components
    One French pack: 52 cards for 4 and 5 players; 54 (plus a red and a black joker) for 3 and
    6 players. Card codes: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` + suit ``S H D C`` (``QS``,
    ``TD``, ``7H``); jokers ``RJ`` and ``BJ`` are ordinary callable cards. **Pack order** (used
    for every sorted list and for ``legal_moves``): spades A…K, hearts A…K, diamonds A…K, clubs
    A…K, then ``RJ``, ``BJ``.
    Seats are numbered clockwise 0 … n-1. The player to the **right** of seat i is seat i-1,
    whatever ``turn_direction`` says (that option changes only the turn order).

1. Draft (one turn step per pick)
    All cards lie face up in the **pool**. The deal's starting player takes any one card into
    hand (``{"take": "QS"}``), then the next player in turn order, and so on, until everyone
    holds 18 (3p), 13 (4p), 10 (5p) or 9 (6p) cards. Every pick is public. With 5 players the
    2 untaken cards start the discard pile, in pack order (the later one on top, the only one
    visible).

2. Life cards (one simultaneous sealed step for every seat)
    Every player chooses ``life_cards`` of their cards: ``{"life": ["2C", "7H", "KD"]}``
    (exactly k distinct cards of their own, in any order); ``legal_moves`` gives the template
    ``{"life": {"choose": k, "from": [the seat's cards in pack order]}}``. The other cards are
    the player's **hand cards**; their number is the seat's *starting hand cards*
    (hand size - k). Nobody ever sees life cards again, their owner included: no view, no
    resolution shows them, and ``echoes`` is false for the move.

3. The hunt (one turn step per call)
    The deal's starting player calls any card of the pack by name (``{"call": "5D"}``;
    ``legal_moves`` lists every code of the pack, blank shots included), then the next active
    player in turn order, and so on. Totally finished players are skipped.

    Intended target: on a player's c-th call of the deal the target is the k-th active player
    to the caller's right, k = ((c - 1) mod (m - 1)) + 1, m = the number of active players at
    that moment.

    Scoring for the caller (finishing = it was that player's last life card; replaces the
    points):

    ========== =========================================== ====== =========
    outcome    the called card is …                        points finishing
    ========== =========================================== ====== =========
    hit        in the target's hand                        +5     —
    kill       a life card of the target                   +10    +20
    miss       in the hand of any other player, the        -3     —
               caller's own hand included
    critical   a life card of a non-target player          +3     +6
    suicide    one of the caller's own life cards          -20    -40
    blank      already on the table (discard pile or        -6     —
               exposed area); nothing moves
    ========== =========================================== ====== =========

    A called card that is not a blank shot goes face up on top of the discard pile.

    ``strict_memory``: when the called card is in nobody's hand (a life card or a blank shot),
    a claim step opens before the call resolves: every active player sends
    ``{"claim": true|false}`` at once. The owner of the life card who does not claim it loses
    10 points; every player who claims it without holding it as a life card loses 10 points.
    Then the call scores as in the table.

    Finishing: a player whose last life card is called is finished. If they still hold more
    than half of their starting hand cards and have not sacrificed yet in this deal, a turn
    step opens for them: ``{"sacrifice": "9H"}`` makes that hand card their single new life
    card (face down), ``{"sacrifice": null}`` declines. A deciding player still counts as
    active. Otherwise, or on declining, they are **totally finished**: their hand cards go face
    up to the exposed area and they are skipped from then on. After the decision the turn
    passes to the next active player after the caller.

End of a deal: no card left in any hand or life area; fewer than two active players; or
``max_calls`` calls in the deal (checked right after a call resolves, before any sacrifice
step). Scores add up over ``deals`` deals; the starting player of deal d + 1 is the next
player in turn order after the starting player of deal d. Highest total wins; equal top
totals share the win. Ranking by total, ties grouped, forfeited seats last.

Resolutions of our own (beyond the rules text)
    * The 5-player discard start is in pack order (the later card on top).
    * ``calls`` (the c of the target rule), ``max_calls`` and the once-per-game sacrifice all
      count per deal; every deal is a fresh game of Xato whose points are added.
    * A deal that reaches ``max_calls`` ends at once, even when the last call finished a player
      who could have sacrificed.
    * In the claim step every active player (caller included) claims; the call's outcome is
      decided by where the card is, whatever was claimed.
    * The next deal's starting player is the next player in turn order.

Options
    ============== =========================================================== ==========
    option         values                                                      default
    ============== =========================================================== ==========
    life_cards     1 … 5 life cards per player                                 3
    turn_direction ``clockwise`` · ``counterclockwise`` (turn order only)      clockwise
    strict_memory  claim step when a called card is in nobody's hand           true
    history        ``full`` — views carry every public event ·                 table_only
                   ``table_only`` — views show only the table now
    max_calls      1 … 1000 calls per deal; ``null`` = 3 x deck size           null
    deals          1 … 5 deals, scores added                                   1
    ============== =========================================================== ==========

Deal stream (``initial_state``; everything is drawn up front)
    Exactly one draw: ``rng.randbelow(players)`` is the starting player of deal 1. Every
    later deal's starting player follows from it (rotation, above); the pack is laid out face
    up, so nothing else is random. ``apply`` never draws.

Hidden information: life cards from everyone, their owner included; under ``table_only`` every
other player's hand (the draft must be remembered) and, for its owner, which of the unseen
cards are its own life cards; the discard pile below its top card.

State (JSON)
    ``game``, ``players``, ``options`` (filled), ``deals``, ``deal`` (from 1), ``step`` (the
    open step, from 1), ``over``, ``phase`` (``draft`` · ``life`` · ``hunt`` · ``claim`` ·
    ``sacrifice`` · ``over``), ``hand_size``, ``starting_hand`` (hand cards after the life
    step), ``max_calls`` (resolved), ``starts`` (starting player per deal), ``current`` (seat
    on turn in draft / hunt / sacrifice, else null), ``pool`` (draft cards still face up),
    ``hands`` and ``life`` (per seat, pack order — life is hidden), ``status`` (per seat
    ``active`` · ``deciding`` · ``out``), ``sacrificed`` (per seat, this deal), ``discard``
    (bottom to top), ``exposed``, ``calls`` (per seat, this deal), ``total_calls`` (this
    deal), ``scores`` (totals), ``points`` (this deal), ``deal_results`` (``deal``,
    ``points``, ``reason``), ``pending`` (claim step: ``caller``, ``card``, ``target``),
    ``resume`` (the caller whose turn passes on after a sacrifice step), ``history`` (public
    events, kept in every mode, shown only with ``full``).

View (``view(state, seat)``; seat None is a spectator)
    ``deal``, ``deals``, ``step``, ``over``, ``phase`` (``kind`` plus ``seat`` for turn
    steps, ``seats`` for simultaneous ones, ``choose`` in the life step), ``players``,
    ``turn_direction``, ``history_mode``, ``strict_memory``, ``life_cards``, ``hand_size``,
    ``starting_hand``, ``starting_player``, ``current``, ``pool`` (draft: face-up cards),
    ``hand_count`` and ``life_count`` (per seat), ``discard_top``, ``discard_count``,
    ``exposed``, ``scores``, ``points`` (this deal), ``deal_results``, ``calls_made`` (per
    seat), ``total_calls``, ``max_calls``, ``target`` (of the current or pending call),
    ``pending`` (claim step: ``caller``, ``card``, ``target``), ``active``, ``finished``,
    ``history`` ([] with ``table_only``); for a seat also ``hand`` (its hand cards, pack order
    — never its life cards). Never another seat's hand.

Resolution ``public`` (every kind also has ``step``, ``deal``, ``kind``, ``scores``,
``phase`` (the next phase), ``deal_over`` (null or ``{"deal", "points", "reason"}``),
``over``)
    ``take``: ``seat``, ``card``, ``discard_start`` (5p, end of draft: the 2 untaken cards).
    ``life``: ``life_counts`` only.
    ``call``: ``seat``, ``card``, ``target``, and either ``claim_step: true`` (the outcome is
    pending) or the outcome fields ``outcome`` (hit · kill · miss · critical · suicide ·
    blank), ``points``, ``holder`` (whose card it was; null for a blank shot), ``finishing``,
    ``finished`` (``{"seat", "exposed"}`` when the holder became totally finished at once,
    else null), ``sacrifice_step`` (the seat now deciding, or null).
    ``claim``: ``claims`` (per seat: bool, null for seats not claiming), ``penalties`` (per
    seat), then the outcome fields of the call (with ``seat``, ``card``, ``target``).
    ``sacrifice``: ``seat``, ``sacrificed`` (bool only — never the card), ``finished`` as
    above. ``private`` is always empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict, cast

from cardgames.engines.base import BaseEngine, SeatedState, is_seat
from cardgames.engines.protocol import IllegalMove, Move, Resolution, ToAct
from cardgames.engines.rng import DealRng
from cardgames.engines.states import clone

SLUG = "xato"

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKERS: tuple[str, ...] = ("RJ", "BJ")
PACK_52: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
PACK_54: tuple[str, ...] = PACK_52 + JOKERS
ALL_CODES = frozenset(PACK_54)
ORDER: dict[str, int] = {code: index for index, code in enumerate(PACK_54)}

HAND_SIZES: dict[int, int] = {3: 18, 4: 13, 5: 10, 6: 9}

POINTS: dict[str, tuple[int, int]] = {
    # outcome: (points, finishing points)
    "hit": (5, 5),
    "kill": (10, 20),
    "miss": (-3, -3),
    "critical": (3, 6),
    "suicide": (-20, -40),
    "blank": (-6, -6),
}
CLAIM_PENALTY = 10

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Xato options",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "life_cards": {
            "description": "Life cards each player chooses after the draft.",
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "default": 3,
        },
        "turn_direction": {
            "description": (
                "Turn order of draft and hunt. The player to the right of seat i is always "
                "seat i-1."
            ),
            "enum": ["clockwise", "counterclockwise"],
            "default": "clockwise",
        },
        "strict_memory": {
            "description": (
                "When a called card is in nobody's hand, every active player claims or not; "
                "an owner who does not claim their life card, and anyone claiming a card they "
                "do not hold as a life card, loses 10 points."
            ),
            "type": "boolean",
            "default": True,
        },
        "history": {
            "description": (
                "full: every public event stays readable. table_only: views show only what "
                "is on the table now (past picks and calls must be remembered)."
            ),
            "enum": ["full", "table_only"],
            "default": "table_only",
        },
        "max_calls": {
            "description": "Calls per deal before it ends; null means automatic: 3 x deck size.",
            "type": ["integer", "null"],
            "minimum": 1,
            "maximum": 1000,
            "default": None,
        },
        "deals": {
            "description": "Number of deals; scores add up, the starting player rotates.",
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "default": 1,
        },
    },
}

Phase = Literal["draft", "life", "hunt", "claim", "sacrifice", "over"]
#: A public event (``take``, ``life``, ``call``, ``claim``, ``sacrifice``) as kept in history.
Event = dict[str, Any]


class XatoOptions(TypedDict):
    life_cards: int
    turn_direction: Literal["clockwise", "counterclockwise"]
    strict_memory: bool
    history: Literal["full", "table_only"]
    max_calls: int | None
    deals: int


class DealResult(TypedDict):
    deal: int
    points: list[int]
    reason: Literal["max_calls", "no_cards", "one_active"]


class PendingCall(TypedDict):
    """A call waiting for the claim step."""

    caller: int
    card: str
    target: int


class XatoState(SeatedState):
    game: str
    options: XatoOptions
    deals: int
    deal: int
    phase: Phase
    hand_size: int
    starting_hand: int
    max_calls: int
    starts: list[int]
    scores: list[int]
    deal_results: list[DealResult]
    history: list[Event]
    # The open deal (set by ``_start_deal``).
    current: int | None
    pool: list[str]
    hands: list[list[str]]
    life: list[list[str]]
    status: list[Literal["active", "deciding", "out"]]
    sacrificed: list[bool]
    discard: list[str]
    exposed: list[str]
    calls: list[int]
    total_calls: int
    points: list[int]
    pending: PendingCall | None
    resume: int | None


# --- cards -------------------------------------------------------------------------------------


def pack(players: int) -> tuple[str, ...]:
    """The pack for ``players`` players, in pack order."""
    return PACK_54 if players in (3, 6) else PACK_52


def sort_cards(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=ORDER.__getitem__)


def _step_dir(state: XatoState) -> int:
    return 1 if state["options"]["turn_direction"] == "clockwise" else -1


def _active(state: XatoState) -> list[int]:
    """Seats still in the hunt (a player deciding on a sacrifice counts)."""
    return [s for s in range(state["players"]) if state["status"][s] != "out"]


def _next_turn(state: XatoState, seat: int) -> int:
    """The next active seat after ``seat`` in turn order."""
    n: int = state["players"]
    step = _step_dir(state)
    for offset in range(1, n + 1):
        other = (seat + step * offset) % n
        if state["status"][other] == "active":
            return other
    raise AssertionError("no active seat")


def target_of(state: XatoState, caller: int, call_number: int) -> int:
    """The intended target of ``caller``'s ``call_number``-th call (from 1)."""
    n: int = state["players"]
    active = set(_active(state))
    right = [(caller - offset) % n for offset in range(1, n)]
    candidates = [seat for seat in right if seat in active]
    k = (call_number - 1) % len(candidates) + 1
    return candidates[k - 1]


def _locate(state: XatoState, card: str) -> tuple[str, int | None]:
    for seat, hand in enumerate(state["hands"]):
        if card in hand:
            return "hand", seat
    for seat, life in enumerate(state["life"]):
        if card in life:
            return "life", seat
    return "table", None


def _code(move: object, key: str, shape: str) -> object:
    if not isinstance(move, Mapping) or set(move) != {key}:
        raise IllegalMove("xato_move_shape", shape=shape)
    return move[key]


def _check_code(state: XatoState, card: object) -> str:
    if not isinstance(card, str) or card not in ALL_CODES:
        raise IllegalMove("xato_not_a_code", card=repr(card))
    if card not in pack(state["players"]):
        raise IllegalMove("xato_not_in_pack", card=card, players=state["players"])
    return card


# --- the engine --------------------------------------------------------------------------------


class Xato(BaseEngine[XatoState]):
    slug = SLUG
    name = "Xato"
    min_players = 3
    max_players = 6
    rules_version = "xato-1"
    options_schema = OPTIONS_SCHEMA
    history_default = "table_only"

    # --- setup ---------------------------------------------------------------------------------

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> XatoState:
        opts = cast(XatoOptions, self.validate_options(options, players))
        first = rng.randbelow(players)
        step = 1 if opts["turn_direction"] == "clockwise" else -1
        deals = opts["deals"]
        starts = [(first + step * d) % players for d in range(deals)]
        deck = pack(players)
        max_calls = opts["max_calls"] if opts["max_calls"] is not None else 3 * len(deck)
        # The open deal's keys are set by ``_start_deal`` (after these, as stored).
        state = cast(
            XatoState,
            {
                "game": SLUG,
                "players": players,
                "options": opts,
                "deals": deals,
                "deal": 1,
                "step": 1,
                "over": False,
                "phase": "draft",
                "hand_size": HAND_SIZES[players],
                "starting_hand": HAND_SIZES[players] - opts["life_cards"],
                "max_calls": max_calls,
                "starts": starts,
                "scores": [0] * players,
                "deal_results": [],
                "history": [],
            },
        )
        _start_deal(state)
        return state

    # --- acting --------------------------------------------------------------------------------

    def to_act(self, state: XatoState) -> ToAct | None:
        phase = state["phase"]
        if state["over"]:
            return None
        if phase == "life":
            return ToAct(seats=tuple(range(state["players"])), simultaneous=True)
        if phase == "claim":
            return ToAct(seats=tuple(_active(state)), simultaneous=True)
        assert state["current"] is not None  # draft, hunt and sacrifice have a seat on turn
        return ToAct(seats=(state["current"],), simultaneous=False)

    def legal_moves(self, state: XatoState, seat: int) -> list[Move]:
        acting = self.to_act(state)
        if acting is None or seat not in acting.seats:
            return []
        phase = state["phase"]
        if phase == "draft":
            return [{"take": card} for card in state["pool"]]
        if phase == "life":
            hand = sort_cards(state["hands"][seat])
            return [{"life": {"choose": state["options"]["life_cards"], "from": hand}}]
        if phase == "hunt":
            return [{"call": card} for card in pack(state["players"])]
        if phase == "claim":
            return [{"claim": False}, {"claim": True}]
        hand = sort_cards(state["hands"][seat])
        return [{"sacrifice": card} for card in hand] + [{"sacrifice": None}]

    def check_move(self, state: XatoState, seat: int, move: Move) -> None:
        if state["over"]:
            raise IllegalMove("game_over")
        if not is_seat(state, seat):
            raise IllegalMove("seat_not_in_game", seat=seat)
        acting = self.to_act(state)
        if acting is None or seat not in acting.seats:
            raise IllegalMove("xato_not_to_act", seat=seat)
        phase = state["phase"]
        if phase == "draft":
            card = _check_code(state, _code(move, "take", '{"take": "<card>"}'))
            if card not in state["pool"]:
                raise IllegalMove("xato_not_on_table", card=card)
        elif phase == "life":
            chosen = _code(move, "life", '{"life": [<cards>]}')
            k: int = state["options"]["life_cards"]
            if not isinstance(chosen, list):
                raise IllegalMove("xato_life_list")
            if len(chosen) != k:
                raise IllegalMove("xato_life_count", count=k)
            cards = [_check_code(state, card) for card in chosen]
            if len(set(cards)) != len(cards):
                raise IllegalMove("xato_life_distinct")
            for card in cards:
                if card not in state["hands"][seat]:
                    raise IllegalMove("xato_not_yours", card=card)
        elif phase == "hunt":
            _check_code(state, _code(move, "call", '{"call": "<card>"}'))
        elif phase == "claim":
            claim = _code(move, "claim", '{"claim": true|false}')
            if not isinstance(claim, bool):
                raise IllegalMove("xato_claim_boolean")
        else:
            given = _code(move, "sacrifice", '{"sacrifice": "<card>" | null}')
            if given is not None:
                card = _check_code(state, given)
                if card not in state["hands"][seat]:
                    raise IllegalMove("not_in_hand", card=card)

    def apply(self, state: XatoState, moves: Mapping[int, Move]) -> Resolution[XatoState]:
        seats = self.checked_step(state, moves)
        new = _clone(state)
        phase = new["phase"]
        step = new["step"]
        deal = new["deal"]
        if phase == "draft":
            event = _apply_take(new, moves[seats[0]]["take"])
        elif phase == "life":
            event = _apply_life(new, moves)
        elif phase == "hunt":
            event = _apply_call(new, moves[seats[0]]["call"])
        elif phase == "claim":
            event = _apply_claim(new, {s: bool(m["claim"]) for s, m in moves.items()})
        else:
            event = _apply_sacrifice(new, moves[seats[0]]["sacrifice"])
        event = {"step": step, "deal": deal, **event}
        new["history"].append(clone(event))
        new["step"] = step + 1
        deal_over: DealResult | None = None
        if len(new["deal_results"]) >= deal:
            deal_over = clone(new["deal_results"][deal - 1])
        public = {
            **event,
            "scores": list(new["scores"]),
            "phase": new["phase"],
            "deal_over": deal_over,
            "over": new["over"],
        }
        return Resolution(state=new, public=public)

    # --- reading -------------------------------------------------------------------------------

    def view(self, state: XatoState, seat: int | None) -> dict[str, Any]:
        full = state["options"]["history"] == "full"
        phase = state["phase"]
        acting = self.to_act(state)
        phase_info: dict[str, Any] = {"kind": phase}
        if acting is not None:
            if acting.simultaneous:
                phase_info["seats"] = list(acting.seats)
            else:
                phase_info["seat"] = acting.seats[0]
        if phase == "life":
            phase_info["choose"] = state["options"]["life_cards"]
        pending = state["pending"]
        target: int | None = None
        if phase == "hunt":
            caller = state["current"]
            assert caller is not None
            target = target_of(state, caller, state["calls"][caller] + 1)
        elif phase == "claim":
            assert pending is not None
            target = pending["target"]
        result: dict[str, Any] = {
            "deal": state["deal"],
            "deals": state["deals"],
            "step": state["step"],
            "over": state["over"],
            "phase": phase_info,
            "players": state["players"],
            "turn_direction": state["options"]["turn_direction"],
            "history_mode": state["options"]["history"],
            "strict_memory": state["options"]["strict_memory"],
            "life_cards": state["options"]["life_cards"],
            "hand_size": state["hand_size"],
            "starting_hand": state["starting_hand"],
            "starting_player": state["starts"][state["deal"] - 1],
            "current": state["current"],
            "pool": list(state["pool"]),
            "hand_count": [len(hand) for hand in state["hands"]],
            "life_count": [len(life) for life in state["life"]],
            "discard_top": state["discard"][-1] if state["discard"] else None,
            "discard_count": len(state["discard"]),
            "exposed": sort_cards(state["exposed"]),
            "scores": list(state["scores"]),
            "points": list(state["points"]),
            "deal_results": _copy_json(state["deal_results"]),
            "calls_made": list(state["calls"]),
            "total_calls": state["total_calls"],
            "max_calls": state["max_calls"],
            "target": target,
            "pending": dict(pending) if pending is not None else None,
            "active": _active(state),
            "finished": [s for s in range(state["players"]) if state["status"][s] == "out"],
            "history": _copy_json(state["history"]) if full else [],
        }
        if seat is not None and is_seat(state, seat):
            result["hand"] = sort_cards(state["hands"][seat])
        return result

    def scores(self, state: XatoState) -> list[int]:
        return list(state["scores"])

    def timeout_move(self, state: XatoState, seat: int) -> Move:
        legal = self.legal_moves(state, seat)
        if not legal:
            raise IllegalMove("no_move_due")
        phase = state["phase"]
        if phase == "life":
            k = state["options"]["life_cards"]
            return {"life": sort_cards(state["hands"][seat])[:k]}
        if phase == "hunt":
            # Knowledge-free: the first card not in the seat's own hand and not face up.
            seen = set(state["hands"][seat]) | set(state["exposed"]) | set(state["discard"][-1:])
            for card in pack(state["players"]):
                if card not in seen:
                    return {"call": card}
            return legal[0]
        if phase == "claim":
            return {"claim": False}
        if phase == "sacrifice":
            return {"sacrifice": None}
        return legal[0]

    def shuffle_hidden(self, state: XatoState, seat: int | None, rng: DealRng) -> XatoState:
        """Redraw every card position hidden from ``seat``, keeping every count.

        ``full``: each other seat's cards are re-split between hand and life areas (the draft
        history fixes which cards a seat holds); the seat's own split is fixed by its hand
        view; the discard pile below its top is reordered. ``table_only``: every card the
        seat cannot see — other seats' hands, every life area (its own included) and the
        discard pile below its top — is dealt anew into the same slots. The card of a pending
        claim step stays where it is (the step tells everyone it is in nobody's hand).
        The result shares the unchanged ``history`` list with ``state`` (treat both as frozen).
        """
        new = _clone(state, share_history=True)
        players = new["players"]
        others = [s for s in range(players) if s != seat]
        pinned = {new["pending"]["card"]} if new["pending"] is not None else set()
        below = new["discard"][:-1]
        top = new["discard"][-1:]
        if new["options"]["history"] == "full":
            for other in others:
                _redeal(rng, [new["hands"][other], new["life"][other]], pinned)
            rng.shuffle(below)
        else:
            slots = [new["hands"][other] for other in others]
            slots += [new["life"][s] for s in range(players)]
            slots.append(below)
            _redeal(rng, slots, pinned)
        new["discard"] = below + top
        new["hands"] = [sort_cards(hand) for hand in new["hands"]]
        new["life"] = [sort_cards(life) for life in new["life"]]
        return new

    def echoes(self, state: XatoState, move: Move) -> bool:
        return not (isinstance(move, Mapping) and ("life" in move or "sacrifice" in move))


def _clone(state: XatoState, share_history: bool = False) -> XatoState:
    """A deep copy of a state (its layout is known: faster than a generic copy)."""
    new: dict[str, Any] = {}
    items: Mapping[str, Any] = state
    for key, value in items.items():
        if key == "history" and share_history:
            new[key] = value
        elif key in ("history", "deal_results"):
            new[key] = _copy_json(value)
        elif isinstance(value, list):
            new[key] = [list(item) if isinstance(item, list) else item for item in value]
        elif isinstance(value, dict):
            new[key] = dict(value)
        else:
            new[key] = value
    return cast(XatoState, new)


def _copy_json(value: Sequence[Mapping[str, Any]]) -> list[Any]:
    """A deep copy of a list of JSON events (flat dicts whose values may hold lists/dicts)."""
    return [
        {key: _deep(item) if type(item) in (list, dict) else item for key, item in entry.items()}
        for entry in value
    ]


def _deep(value: object) -> object:
    if type(value) is list:
        return [_deep(item) for item in value]
    if type(value) is dict:
        return {key: _deep(item) for key, item in value.items()}
    return value


def _redeal(rng: DealRng, slots: list[list[str]], pinned: set[str]) -> None:
    """Shuffle the unpinned cards of ``slots`` among them in place, keeping each slot's size."""
    free = [card for slot in slots for card in slot if card not in pinned]
    rng.shuffle(free)
    for slot in slots:
        kept = [card for card in slot if card in pinned]
        take = len(slot) - len(kept)
        slot[:] = kept + free[:take]
        del free[:take]


def _on_turn(state: XatoState) -> int:
    """The seat on turn in a draft, hunt or sacrifice step."""
    seat = state["current"]
    assert seat is not None
    return seat


# --- phases ------------------------------------------------------------------------------------


def _start_deal(state: XatoState) -> None:
    players = state["players"]
    start = state["starts"][state["deal"] - 1]
    state.update(
        {
            "phase": "draft",
            "current": start,
            "pool": list(pack(players)),
            "hands": [[] for _ in range(players)],
            "life": [[] for _ in range(players)],
            "status": ["active"] * players,
            "sacrificed": [False] * players,
            "discard": [],
            "exposed": [],
            "calls": [0] * players,
            "total_calls": 0,
            "points": [0] * players,
            "pending": None,
            "resume": None,
        }
    )


def _apply_take(state: XatoState, card: str) -> Event:
    seat = _on_turn(state)
    state["pool"].remove(card)
    state["hands"][seat] = sort_cards([*state["hands"][seat], card])
    event: dict[str, Any] = {"kind": "take", "seat": seat, "card": card, "discard_start": None}
    if all(len(hand) == state["hand_size"] for hand in state["hands"]):
        if state["pool"]:
            event["discard_start"] = list(state["pool"])
            state["discard"] = list(state["pool"])
            state["pool"] = []
        state["phase"] = "life"
        state["current"] = None
    else:
        state["current"] = (seat + _step_dir(state)) % state["players"]
    return event


def _apply_life(state: XatoState, moves: Mapping[int, Move]) -> Event:
    for seat in range(state["players"]):
        chosen = set(moves[seat]["life"])
        state["life"][seat] = sort_cards(list(chosen))
        state["hands"][seat] = [card for card in state["hands"][seat] if card not in chosen]
    state["phase"] = "hunt"
    state["current"] = state["starts"][state["deal"] - 1]
    return {"kind": "life", "life_counts": [len(life) for life in state["life"]]}


def _apply_call(state: XatoState, card: str) -> Event:
    caller = _on_turn(state)
    target = target_of(state, caller, state["calls"][caller] + 1)
    state["calls"][caller] += 1
    state["total_calls"] += 1
    where, _ = _locate(state, card)
    if state["options"]["strict_memory"] and where != "hand":
        state["pending"] = {"caller": caller, "card": card, "target": target}
        state["phase"] = "claim"
        state["current"] = None
        return {"kind": "call", "seat": caller, "card": card, "target": target, "claim_step": True}
    return {
        "kind": "call",
        "seat": caller,
        "card": card,
        "target": target,
        "claim_step": False,
        **_resolve_call(state, caller, card, target),
    }


def _apply_claim(state: XatoState, claims: Mapping[int, bool]) -> Event:
    pending = state["pending"]
    assert pending is not None  # a claim step always has its call
    caller = pending["caller"]
    card = pending["card"]
    target = pending["target"]
    where, owner = _locate(state, card)
    owner = owner if where == "life" else None
    penalties = [0] * state["players"]
    for seat, claimed in claims.items():
        if (seat == owner and not claimed) or (claimed and seat != owner):
            penalties[seat] = -CLAIM_PENALTY
    for seat, penalty in enumerate(penalties):
        state["scores"][seat] += penalty
        state["points"][seat] += penalty
    state["pending"] = None
    return {
        "kind": "claim",
        "seat": caller,
        "card": card,
        "target": target,
        "claims": [claims.get(seat) for seat in range(state["players"])],
        "penalties": penalties,
        **_resolve_call(state, caller, card, target),
    }


def _resolve_call(state: XatoState, caller: int, card: str, target: int) -> Event:
    """Score the call, move the card, handle finishing; open the next step."""
    where, holder = _locate(state, card)
    finishing = False
    if where == "table":
        outcome = "blank"
    elif where == "hand":
        assert holder is not None
        outcome = "hit" if holder == target else "miss"
        state["hands"][holder].remove(card)
        state["discard"].append(card)
    else:
        assert holder is not None
        if holder == caller:
            outcome = "suicide"
        elif holder == target:
            outcome = "kill"
        else:
            outcome = "critical"
        state["life"][holder].remove(card)
        state["discard"].append(card)
        finishing = not state["life"][holder]
    points = POINTS[outcome][1 if finishing else 0]
    state["scores"][caller] += points
    state["points"][caller] += points
    result: dict[str, Any] = {
        "outcome": outcome,
        "points": points,
        "holder": holder,
        "finishing": finishing,
        "finished": None,
        "sacrifice_step": None,
    }
    if state["total_calls"] >= state["max_calls"]:
        _end_deal(state, "max_calls")
        return result
    if finishing:
        assert holder is not None
        if _may_sacrifice(state, holder):
            state["status"][holder] = "deciding"
            state["phase"] = "sacrifice"
            state["current"] = holder
            state["resume"] = caller
            result["sacrifice_step"] = holder
            return result
        result["finished"] = _finish(state, holder)
    _continue_hunt(state, caller)
    return result


def _may_sacrifice(state: XatoState, seat: int) -> bool:
    return not state["sacrificed"][seat] and 2 * len(state["hands"][seat]) > state["starting_hand"]


def _finish(state: XatoState, seat: int) -> dict[str, Any]:
    """Seat ``seat`` is totally finished: its hand goes face up to the exposed area."""
    cards = sort_cards(state["hands"][seat])
    state["exposed"] = sort_cards([*state["exposed"], *cards])
    state["hands"][seat] = []
    state["status"][seat] = "out"
    return {"seat": seat, "exposed": cards}


def _apply_sacrifice(state: XatoState, card: str | None) -> Event:
    seat = _on_turn(state)
    event: dict[str, Any] = {
        "kind": "sacrifice",
        "seat": seat,
        "sacrificed": card is not None,
        "finished": None,
    }
    state["sacrificed"][seat] = True
    if card is not None:
        state["hands"][seat].remove(card)
        state["life"][seat] = [card]
        state["status"][seat] = "active"
    else:
        event["finished"] = _finish(state, seat)
    caller = state["resume"]
    assert caller is not None  # a sacrifice step always resumes its caller's turn
    state["resume"] = None
    _continue_hunt(state, caller)
    return event


def _continue_hunt(state: XatoState, caller: int) -> None:
    """End the deal if the hunt is over, else give the turn to the next active player."""
    active = _active(state)
    if not any(state["hands"]) and not any(state["life"]):
        _end_deal(state, "no_cards")
    elif len(active) < 2:
        _end_deal(state, "one_active")
    else:
        state["phase"] = "hunt"
        state["current"] = _next_turn(state, caller)


def _end_deal(state: XatoState, reason: Literal["max_calls", "no_cards", "one_active"]) -> None:
    deal = state["deal"]
    state["deal_results"].append({"deal": deal, "points": list(state["points"]), "reason": reason})
    if deal < state["deals"]:
        state["deal"] = deal + 1
        _start_deal(state)
    else:
        state["over"] = True
        state["phase"] = "over"
        state["current"] = None
        state["pending"] = None
        state["resume"] = None


# --- constructed positions (engine tests only) ---------------------------------------------------


def hunt_position(
    hands: Sequence[Sequence[str]],
    life: Sequence[Sequence[str]],
    *,
    current: int = 0,
    start: int = 0,
    calls: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    discard: Sequence[str] = (),
    exposed: Sequence[str] = (),
    out: Sequence[int] = (),
    sacrificed: Sequence[int] = (),
    starting_hand: int | None = None,
    total_calls: int = 0,
    options: Mapping[str, Any] | None = None,
) -> XatoState:
    """A hunt position built directly (engine tests only; never reached through the API).

    Cards named nowhere lie at the bottom of the discard pile (in pack order), below
    ``discard`` (bottom to top). Seats in ``out`` are totally finished.
    """
    players = len(hands)
    opts = cast(XatoOptions, ENGINE.validate_options(dict(options or {}), players))
    deck = pack(players)
    placed = [c for group in (*hands, *life, discard, exposed) for c in group]
    if len(placed) != len(set(placed)) or not set(placed) <= set(deck):
        raise ValueError("every card must be in the pack and in one place")
    rest = [card for card in deck if card not in set(placed)]
    max_calls = opts["max_calls"] if opts["max_calls"] is not None else 3 * len(deck)
    state = cast(
        XatoState,
        {
            "game": SLUG,
            "players": players,
            "options": opts,
            "deals": opts["deals"],
            "deal": 1,
            "step": 1,
            "over": False,
            "phase": "hunt",
            "hand_size": HAND_SIZES[players],
            "starting_hand": (
                HAND_SIZES[players] - opts["life_cards"] if starting_hand is None else starting_hand
            ),
            "max_calls": max_calls,
            "starts": [(start + d) % players for d in range(opts["deals"])],
            "scores": list(scores) if scores is not None else [0] * players,
            "deal_results": [],
            "history": [],
        },
    )
    _start_deal(state)
    state.update(
        {
            "phase": "hunt",
            "current": current,
            "pool": [],
            "hands": [sort_cards(hand) for hand in hands],
            "life": [sort_cards(cards) for cards in life],
            "status": ["out" if s in out else "active" for s in range(players)],
            "sacrificed": [s in sacrificed for s in range(players)],
            "discard": rest + list(discard),
            "exposed": sort_cards(exposed),
            "calls": list(calls) if calls is not None else [0] * players,
            "total_calls": total_calls,
            "points": list(state["scores"]),
        }
    )
    return state


ENGINE = Xato()
