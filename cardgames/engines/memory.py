"""Memory (Pelmanism), slug ``memory``, rules version ``memory-1``.

From the Penguin Book's catching games. 2-6 players, sequential turns; every flip is one step.

Components
    With ``pairs`` = P the cards used are the first 2P of ``AS AH 2S 2H … KS KH AD AC 2D 2C …
    KD KC`` (26 pairs, the whole pack, by default). Card codes are rank ``A 2 … 9 T J Q K`` +
    suit ``S H D C``. Any two cards of equal rank form a pair (with P > 13 some ranks have four
    cards; any two of them pair). The cards lie face down on positions 0 … 2P-1.

A turn (two steps, both by the seat whose turn it is)
    1. Flip one face-down position: ``{"flip": 17}``.
    2. Flip a second face-down position: ``{"flip": 4}`` (not the one flipped first).
    3. Same rank → the flipper takes the pair (both cards leave the grid, face up, to the
       flipper's pile) and scores; with ``another_turn_on_pair`` the same seat flips again,
       otherwise the turn passes clockwise (to seat + 1).
    4. Different ranks → the turn passes clockwise. The two cards stay visible ("showing")
       until the next player's first flip, then turn face down in the same positions. For that
       first flip they count as face down: the next player may flip one of them *(ours)*. At the
       moment of that first flip both turn face down (the one flipped again is at once face up
       again as the new flip).
    5. The game ends when every pair is taken. Score: ``pairs`` — pairs taken; ``ranks`` — the
       sum of the ranks of the pairs taken, each pair counted once, A=1 … K=13. The highest
       score wins; equal top scores share the win. Ranking: by score, equal scores grouped;
       forfeited seats last and never winners.

Visibility (``flips_visible_to``)
    ``all`` — a flipped card is shown to every viewer (spectators included). ``flipper`` — only
    the flipper sees what it is; every other viewer sees which position was flipped, not the
    card. Either way *(ours)*: a pair that is taken is public (both cards and both positions,
    they are taken face up), and whether a turn's two cards matched is public (the turn passes
    or not). Under ``flipper`` the two cards of a miss were seen by their flipper only, and
    stay visible (to the flipper only) until the next player's first flip.

History (``history``)
    ``table_only`` (default; the game is memory) — the view shows only the grid now
    (face-down positions, cards face up now as far as the viewer may see them, taken
    positions), the taken pairs per seat and the scores; ``history`` is [] and nothing says
    which cards were seen where before. ``full`` *(ours: what a flip history shows)* — the view
    carries every flip so far: ``{"step", "seat", "position", "flip" (1 or 2), "result"
    (second flips: ``pair`` / ``miss``; null on first flips), "card"}`` where ``card`` is the
    card's code when the viewer saw that flip (``all``: every viewer; ``flipper``: the flipper
    only) or when the position has since been taken (its card is public), else null.

Options
    ==================== =========================================================== ==========
    option               values                                                      default
    ==================== =========================================================== ==========
    pairs                6 … 26: play with the first 2 * pairs cards of the order    26
                         above
    flips_visible_to     ``all`` · ``flipper`` (above)                               all
    another_turn_on_pair ``true`` — a seat that takes a pair flips again ·           true
                         ``false`` — the turn passes anyway
    scoring              ``pairs`` · ``ranks`` (above)                               pairs
    history              ``full`` · ``table_only`` (above)                           table_only
    ==================== =========================================================== ==========

Deal stream (``initial_state``; everything is drawn up front)
    1. ``rng.shuffle`` of the list of the 2P card codes in the order above; element i of the
       result lies on position i.
    2. ``rng.randbelow(players)``: the start player.
    ``apply`` never draws.

Hidden information: the identity of every face-down card, from everyone (the flipper included
once it is face down again, unless ``history = full`` shows the flipper's earlier flips).

State (JSON)
    ``game``, ``players``, ``options`` (filled), ``step`` (the open step, from 1), ``over``,
    ``cards`` (card code per position — hidden while face down), ``owner`` (per position: the
    seat that took it, or null), ``taken`` (per seat, cards taken in order, pair by pair),
    ``turn`` (the seat to flip; null when over), ``flipped`` (positions flipped so far this
    turn: [] or [p]), ``showing`` (the two positions of the last miss still face up, or []),
    ``shown_by`` (the seat that flipped them, or null), ``seen`` (per position, the seats that
    have seen its card, sorted), ``history`` (every flip: ``step``, ``seat``, ``position``,
    ``flip``, ``result``; kept in every history mode, shown only with ``full``).

Moves: ``{"flip": position}``; ``legal_moves`` lists every position not taken and not flipped
already this turn (the showing positions of the last miss included), ascending.

View (``view(state, seat)``; seat None is a spectator)
    ``grid`` (per position: null face down, the card code when face up and visible to the
    viewer, ``"taken"`` when taken), ``taken`` (per seat, cards in the order taken), ``scores``,
    ``turn`` (null when over), ``flipped`` (positions flipped this turn), ``showing`` (positions
    of the last miss still face up), ``pairs_left``, ``history_mode``, ``history`` ([] with
    ``table_only``), ``over``. There is no ``hand``.

Resolution
    ``public`` — ``step``, ``seat``, ``flip`` (1 or 2), ``position``, ``card`` (its code with
    ``all``; null with ``flipper``), ``turned_down`` (first flips: the showing positions that
    turn face down now, else []), ``first`` (second flips: the position flipped first, else
    null), ``result`` (second flips: ``pair`` / ``miss``; null on first flips), ``pair`` (the
    two cards taken, first flip first, or null — public under both visibilities), ``scores``,
    ``pairs_left``, ``next`` (the seat to flip next; null when over), ``over``.
    ``private`` — with ``flipper`` only: ``{flipper: {"card": code}}`` for the card just flipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

from cardgames.engines.base import BaseEngine, SeatedState, is_seat, json_moves
from cardgames.engines.protocol import IllegalMove, Move, Resolution, ToAct
from cardgames.engines.rng import DealRng
from cardgames.engines.states import without_history

SLUG = "memory"

RANKS = "A23456789TJQK"
#: The full order the cards are taken from: the first 2P of it are used.
CARD_ORDER: tuple[str, ...] = tuple(
    [f"{rank}{suit}" for rank in RANKS for suit in "SH"]
    + [f"{rank}{suit}" for rank in RANKS for suit in "DC"]
)

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Memory options",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "pairs": {
            "description": "Play with the first 2 * pairs cards of AS AH 2S 2H … KD KC.",
            "type": "integer",
            "minimum": 6,
            "maximum": 26,
            "default": 26,
        },
        "flips_visible_to": {
            "description": (
                "all: every flipped card is shown to everyone. flipper: only the flipper sees "
                "it; the others see which position was flipped. Taken pairs are public."
            ),
            "enum": ["all", "flipper"],
            "default": "all",
        },
        "another_turn_on_pair": {
            "description": "A seat that takes a pair flips again.",
            "type": "boolean",
            "default": True,
        },
        "scoring": {
            "description": (
                "pairs: one point per pair taken. ranks: the rank of every pair taken, A=1 … K=13."
            ),
            "enum": ["pairs", "ranks"],
            "default": "pairs",
        },
        "history": {
            "description": (
                "full: every flip stays readable (with its card where the viewer saw it). "
                "table_only: the view shows only the grid now and the taken pairs."
            ),
            "enum": ["full", "table_only"],
            "default": "table_only",
        },
    },
}


class MemoryOptions(TypedDict):
    pairs: int
    flips_visible_to: Literal["all", "flipper"]
    another_turn_on_pair: bool
    scoring: Literal["pairs", "ranks"]
    history: Literal["full", "table_only"]


class Flip(TypedDict):
    """One flip, as kept in ``history``."""

    step: int
    seat: int
    position: int
    flip: Literal[1, 2]
    result: Literal["pair", "miss"] | None


class MemoryState(SeatedState):
    game: str
    options: MemoryOptions
    cards: list[str]
    owner: list[int | None]
    taken: list[list[str]]
    turn: int | None
    flipped: list[int]
    showing: list[int]
    shown_by: int | None
    seen: list[list[int]]
    history: list[Flip]


class FlipMove(TypedDict):
    flip: int


def rank_of(card: str) -> int:
    """A=1 … K=13."""
    return RANKS.index(card[0]) + 1


def deck(pairs: int) -> list[str]:
    return list(CARD_ORDER[: 2 * pairs])


class Memory(BaseEngine[MemoryState]):
    slug = SLUG
    name = "Memory"
    min_players = 2
    max_players = 6
    rules_version = "memory-1"
    options_schema = OPTIONS_SCHEMA
    history_default = "table_only"

    # --- setup ---------------------------------------------------------------------------------

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> MemoryState:
        opts = cast(MemoryOptions, self.validate_options(options, players))
        cards = rng.shuffled(deck(opts["pairs"]))
        start = rng.randbelow(players)
        return {
            "game": SLUG,
            "players": players,
            "options": opts,
            "step": 1,
            "over": False,
            "cards": cards,
            "owner": [None] * len(cards),
            "taken": [[] for _ in range(players)],
            "turn": start,
            "flipped": [],
            "showing": [],
            "shown_by": None,
            "seen": [[] for _ in cards],
            "history": [],
        }

    # --- acting --------------------------------------------------------------------------------

    def to_act(self, state: MemoryState) -> ToAct | None:
        if state["over"]:
            return None
        assert state["turn"] is not None  # a game not over has a seat to flip
        return ToAct(seats=(state["turn"],), simultaneous=False)

    def legal_moves(self, state: MemoryState, seat: int) -> list[Move]:
        if state["over"] or seat != state["turn"]:
            return []
        moves: list[FlipMove] = [{"flip": position} for position in _open_positions(state)]
        return json_moves(moves)

    def check_move(self, state: MemoryState, seat: int, move: Move) -> None:
        if state["over"]:
            raise IllegalMove("game_over")
        if not is_seat(state, seat):
            raise IllegalMove("seat_not_in_game", seat=seat)
        if seat != state["turn"]:
            raise IllegalMove("memory_not_your_turn", turn=state["turn"], seat=seat)
        position = _position_of(move)
        size = len(state["cards"])
        if not 0 <= position < size:
            raise IllegalMove("position_off_grid", position=position, last=size - 1)
        if state["owner"][position] is not None:
            raise IllegalMove("position_taken", position=position)
        if position in state["flipped"]:
            raise IllegalMove("position_flipped", position=position)

    def apply(self, state: MemoryState, moves: Mapping[int, Move]) -> Resolution[MemoryState]:
        (seat,) = self.checked_step(state, moves)
        position = _position_of(moves[seat])
        # History entries are never changed once written: the new state shares them.
        new = without_history(state)
        new["history"] = list(state["history"])
        players = new["players"]
        step = new["step"]
        everyone = new["options"]["flips_visible_to"] == "all"
        card = new["cards"][position]
        new["seen"][position] = (
            list(range(players)) if everyone else sorted({*new["seen"][position], seat})
        )
        turned_down: list[int] = []
        first: int | None = None
        result: Literal["pair", "miss"] | None = None
        pair: list[str] | None = None
        if not new["flipped"]:
            turned_down = list(new["showing"])
            new["showing"] = []
            new["shown_by"] = None
            new["flipped"] = [position]
            flip: Literal[1, 2] = 1
        else:
            flip = 2
            first = new["flipped"][0]
            first_card = new["cards"][first]
            new["flipped"] = []
            if rank_of(first_card) == rank_of(card):
                result = "pair"
                pair = [first_card, card]
                new["owner"][first] = seat
                new["owner"][position] = seat
                new["taken"][seat].extend(pair)
                if all(owner is not None for owner in new["owner"]):
                    new["over"] = True
                    new["turn"] = None
                elif not new["options"]["another_turn_on_pair"]:
                    new["turn"] = (seat + 1) % players
            else:
                result = "miss"
                new["showing"] = [first, position]
                new["shown_by"] = seat
                new["turn"] = (seat + 1) % players
        new["history"].append(
            {"step": step, "seat": seat, "position": position, "flip": flip, "result": result}
        )
        new["step"] = step + 1
        public: dict[str, Any] = {
            "step": step,
            "seat": seat,
            "flip": flip,
            "position": position,
            "card": card if everyone else None,
            "turned_down": turned_down,
            "first": first,
            "result": result,
            "pair": pair,
            "scores": self.scores(new),
            "pairs_left": _pairs_left(new),
            "next": new["turn"],
            "over": new["over"],
        }
        private: dict[int, dict[str, Any]] = {} if everyone else {seat: {"card": card}}
        return Resolution(state=new, public=public, private=private)

    # --- reading -------------------------------------------------------------------------------

    def view(self, state: MemoryState, seat: int | None) -> dict[str, Any]:
        viewer = seat if seat is not None and is_seat(state, seat) else None
        grid: list[str | None] = []
        for position, card in enumerate(state["cards"]):
            if state["owner"][position] is not None:
                grid.append("taken")
            elif _visible_now(state, position, viewer):
                grid.append(card)
            else:
                grid.append(None)
        everyone = state["options"]["flips_visible_to"] == "all"
        history: list[dict[str, Any]] = []
        if state["options"]["history"] == "full":
            for entry in state["history"]:
                position = entry["position"]
                shown = everyone or entry["seat"] == viewer or state["owner"][position] is not None
                history.append(
                    {
                        "step": entry["step"],
                        "seat": entry["seat"],
                        "position": position,
                        "flip": entry["flip"],
                        "result": entry["result"],
                        "card": state["cards"][position] if shown else None,
                    }
                )
        return {
            "grid": grid,
            "taken": [list(cards) for cards in state["taken"]],
            "scores": self.scores(state),
            "turn": state["turn"],
            "flipped": list(state["flipped"]),
            "showing": list(state["showing"]),
            "pairs_left": _pairs_left(state),
            "history_mode": state["options"]["history"],
            "history": history,
            "over": state["over"],
        }

    def scores(self, state: MemoryState) -> list[int]:
        if state["options"]["scoring"] == "ranks":
            return [sum(rank_of(card) for card in cards[0::2]) for cards in state["taken"]]
        return [len(cards) // 2 for cards in state["taken"]]

    def timeout_move(self, state: MemoryState, seat: int) -> Move:
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMove("no_move_due")
        return moves[0]

    def shuffle_hidden(self, state: MemoryState, seat: int | None, rng: DealRng) -> MemoryState:
        """Permute the cards of every face-down position whose card ``seat`` cannot know.

        Kept in place: taken positions, positions face up now and visible to ``seat``, and with
        ``history = full`` every position whose card ``seat`` has seen (its history names it).
        Under ``table_only`` a seat's earlier sightings are not in its view, so they are redrawn
        too. Only ``cards`` is copied: the result shares every other value with ``state`` (treat
        both as frozen).
        """
        new = state.copy()
        new["cards"] = list(state["cards"])
        viewer = seat if seat is not None and is_seat(state, seat) else None
        full = state["options"]["history"] == "full"
        free = [
            position
            for position in range(len(new["cards"]))
            if new["owner"][position] is None
            and not _visible_now(state, position, viewer)
            and not (full and _has_seen(state, position, viewer))
        ]
        cards = rng.shuffled([new["cards"][position] for position in free])
        for position, card in zip(free, cards, strict=True):
            new["cards"][position] = card
        return new


def _position_of(move: object) -> int:
    if not isinstance(move, Mapping) or set(move) != {"flip"}:
        raise IllegalMove("flip_move_shape")
    position = move["flip"]
    if isinstance(position, bool) or not isinstance(position, int):
        raise IllegalMove("position_not_integer")
    return position


def _open_positions(state: MemoryState) -> list[int]:
    """Positions that count as face down for the next flip."""
    return [
        position
        for position, owner in enumerate(state["owner"])
        if owner is None and position not in state["flipped"]
    ]


def _pairs_left(state: MemoryState) -> int:
    return sum(1 for owner in state["owner"] if owner is None) // 2


def _visible_now(state: MemoryState, position: int, viewer: int | None) -> bool:
    """Whether the face-up card at ``position`` (if any) shows to ``viewer`` now."""
    everyone = state["options"]["flips_visible_to"] == "all"
    if position in state["flipped"]:
        return everyone or viewer == state["turn"]
    if position in state["showing"]:
        return everyone or viewer == state["shown_by"]
    return False


def _has_seen(state: MemoryState, position: int, viewer: int | None) -> bool:
    """Whether ``viewer`` has ever seen the card at ``position`` (spectators: under ``all``,
    every flipped card)."""
    seen = state["seen"][position]
    if viewer is None:
        return state["options"]["flips_visible_to"] == "all" and bool(seen)
    return viewer in seen


ENGINE = Memory()
