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
from typing import Any

import jsonschema

from games.engine.base import check_step_moves
from games.engine.options import validated_options
from games.engine.protocol import IllegalMove, Move, Outcome, Resolution, State, ToAct
from games.engine.ranking import SortKey, rank, top_seats
from games.engine.rng import DealRng
from games.engine.states import clone

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

_VALIDATOR = jsonschema.Draft202012Validator(OPTIONS_SCHEMA)


def rank_of(card: str) -> int:
    """A=1 … K=13."""
    return RANKS.index(card[0]) + 1


def deck(pairs: int) -> list[str]:
    return list(CARD_ORDER[: 2 * pairs])


class Memory:
    slug: str = SLUG
    name: str = "Memory"
    min_players: int = 2
    max_players: int = 6
    rules_version: str = "memory-1"
    options_schema: dict[str, Any] = OPTIONS_SCHEMA

    # --- setup ---------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        return validated_options(
            _VALIDATOR,
            OPTIONS_SCHEMA,
            options,
            slug=SLUG,
            players=players,
            low=self.min_players,
            high=self.max_players,
        )

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> State:
        opts = self.validate_options(options, players)
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

    def to_act(self, state: State) -> ToAct | None:
        if state["over"]:
            return None
        return ToAct(seats=(state["turn"],), simultaneous=False)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if state["over"] or seat != state["turn"]:
            return []
        return [{"flip": position} for position in _open_positions(state)]

    def check_move(self, state: State, seat: int, move: Move) -> None:
        if state["over"]:
            raise IllegalMove("the game is over")
        if not _is_seat(state, seat):
            raise IllegalMove(f"seat {seat} is not in this game")
        if seat != state["turn"]:
            raise IllegalMove(f"it is seat {state['turn']}'s turn, not seat {seat}'s")
        position = _position_of(move)
        size = len(state["cards"])
        if not 0 <= position < size:
            raise IllegalMove(f"position {position} is not on the grid (0 to {size - 1})")
        if state["owner"][position] is not None:
            raise IllegalMove(f"position {position} has already been taken")
        if position in state["flipped"]:
            raise IllegalMove(f"position {position} is already flipped this turn")

    def apply(self, state: State, moves: Mapping[int, Move]) -> Resolution:
        acting = self.to_act(state)
        if acting is None:
            raise IllegalMove("the game is over")
        check_step_moves(moves, acting.seats)
        seat = acting.seats[0]
        self.check_move(state, seat, moves[seat])
        position = _position_of(moves[seat])
        # History entries are never changed once written: the new state shares them.
        new = clone({key: value for key, value in state.items() if key != "history"})
        new["history"] = list(state["history"])
        players: int = new["players"]
        step: int = new["step"]
        everyone = new["options"]["flips_visible_to"] == "all"
        card: str = new["cards"][position]
        new["seen"][position] = (
            list(range(players)) if everyone else sorted({*new["seen"][position], seat})
        )
        turned_down: list[int] = []
        first: int | None = None
        result: str | None = None
        pair: list[str] | None = None
        if not new["flipped"]:
            turned_down = list(new["showing"])
            new["showing"] = []
            new["shown_by"] = None
            new["flipped"] = [position]
            flip = 1
        else:
            flip = 2
            first = int(new["flipped"][0])
            first_card: str = new["cards"][first]
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

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        viewer = seat if seat is not None and _is_seat(state, seat) else None
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

    def scores(self, state: State) -> list[int]:
        if state["options"]["scoring"] == "ranks":
            return [sum(rank_of(card) for card in cards[0::2]) for cards in state["taken"]]
        return [len(cards) // 2 for cards in state["taken"]]

    def outcome(self, state: State, forfeited: frozenset[int] = frozenset()) -> Outcome | None:
        if not state["over"]:
            return None
        totals = self.scores(state)
        keys: list[SortKey] = [(total,) for total in totals]
        return Outcome(
            scores=tuple(totals),
            winners=top_seats(keys, forfeited),
            ranking=rank(keys, forfeited),
        )

    def timeout_move(self, state: State, seat: int) -> Move:
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMove("no move is due")
        return moves[0]

    def shuffle_hidden(self, state: State, seat: int | None, rng: DealRng) -> State:
        """Permute the cards of every face-down position whose card ``seat`` cannot know.

        Kept in place: taken positions, positions face up now and visible to ``seat``, and with
        ``history = full`` every position whose card ``seat`` has seen (its history names it).
        Under ``table_only`` a seat's earlier sightings are not in its view, so they are redrawn
        too. Only ``cards`` is copied: the result shares every other value with ``state`` (treat
        both as frozen).
        """
        new = dict(state)
        new["cards"] = list(state["cards"])
        viewer = seat if seat is not None and _is_seat(state, seat) else None
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

    def echoes(self, state: State, move: Move) -> bool:
        return True

    def history_mode(self, options: Mapping[str, Any]) -> str:
        return str(options.get("history", "table_only"))


def _is_seat(state: State, seat: object) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["players"]


def _position_of(move: Any) -> int:
    if not isinstance(move, Mapping) or set(move) != {"flip"}:
        raise IllegalMove('a move must be exactly {"flip": <position>}')
    position = move["flip"]
    if isinstance(position, bool) or not isinstance(position, int):
        raise IllegalMove("position must be an integer")
    return position


def _open_positions(state: State) -> list[int]:
    """Positions that count as face down for the next flip."""
    return [
        position
        for position, owner in enumerate(state["owner"])
        if owner is None and position not in state["flipped"]
    ]


def _pairs_left(state: State) -> int:
    return sum(1 for owner in state["owner"] if owner is None) // 2


def _visible_now(state: State, position: int, viewer: int | None) -> bool:
    """Whether the face-up card at ``position`` (if any) shows to ``viewer`` now."""
    everyone: bool = state["options"]["flips_visible_to"] == "all"
    if position in state["flipped"]:
        return everyone or viewer == int(state["turn"])
    if position in state["showing"]:
        return everyone or viewer == int(state["shown_by"])
    return False


def _has_seen(state: State, position: int, viewer: int | None) -> bool:
    """Whether ``viewer`` has ever seen the card at ``position`` (spectators: under ``all``,
    every flipped card)."""
    seen: list[int] = state["seen"][position]
    if viewer is None:
        return state["options"]["flips_visible_to"] == "all" and bool(seen)
    return viewer in seen


ENGINE = Memory()
