"""Old Men of the Forest (Altherrenriege), slug ``old-men-of-the-forest``, rules ``omf-1``.

Treefrog Games, 2011. 3-4 players (5 with ``allow_five``, unofficial); sequential turns, every
card is played face up. Play a card; the highest and the second-highest player each take a
card that someone else played, and may trade every card they have taken for an orang-utan.

Components
    50 player cards: five colours x values 1 … 10. Red ``R``, blue ``B``, yellow ``Y``, green
    ``G``, and **deforestation** ``X``. Card codes: colour letter + value (``R3``, ``Y8``,
    ``X10``).
    16 orang-utan cards, each with points and a requirement (how many cards of which colours
    must be handed in). **The orang-utan list is a placeholder**: the published list is not
    known. Only ``OU01`` (Baby, 3 points, one yellow card) is real; the others are stand-ins
    read from ``cardgames/engines/data/old_men_of_the_forest_cards.json`` (``"placeholder":
    true``), and every view carries ``placeholder: true`` and a note so users see the label.

Setup (per game)
    1. Start player: one player card is dealt to each player (seat 0, 1, … in order); the
       highest value starts; the players tied on the highest value draw again (in seat order)
       until one is highest.
    2. All 50 player cards are reshuffled and 10 dealt to each player; the rest stay hidden
       and out of play (20 cards with 3 players, 10 with 4, none with 5).
    3. The orang-utan cards are shuffled; ``players + 1`` of them are laid face up (the
       **layout**); the rest form the face-down orang-utan deck.

A trick (10 tricks per game; every action is one turn step)
    1. The leader plays any card face up, then each other player clockwise (seat + 1). No need
       to follow colour. Move ``{"play": code}``.
    2. The played cards are ranked by value; on equal values the player who played earlier
       ranks higher.
    3. The 1st-ranked player **must** take one played card that is not their own. Move
       ``{"take": code}``. When exactly one card is eligible the step has one legal move (a
       forced step; the services play it).
    4. Right after taking, **if** an orang-utan in the layout is affordable with that player's
       collection (the cards they have taken and not yet handed in), a cash-in step opens for
       them: ``{"cash_in": {"orangutan": id, "give"?: [codes]}}`` or ``{"cash_in": null}``.
       Cashing in hands in the whole collection: the cards the requirement names are
       discarded, every other collected card goes under the orang-utan (-1 each at the end;
       cards under an orang-utan never count towards another one). ``give`` names the cards
       to discard: a set of collection cards whose colours meet the requirement exactly.
       Without ``give`` the server discards, for each required colour, the lowest-valued
       cards of that colour (any choice gives the same score). Requirements count colours
       only; deforestation cards never meet one. The orang-utan leaves the layout at once
       (the layout is refilled only at the end of the trick).
    5. Then the 2nd-ranked player must take one of the remaining played cards that is not
       their own, and may cash in the same way.
    6. Unclaimed played cards are discarded; the layout is refilled to ``players + 1`` from the
       orang-utan deck while it lasts; the 1st-ranked player leads the next trick.

    Only a player who took a card in this trick may cash in, and only right after taking.

End and scoring (after 10 tricks)
    + the points of each orang-utan won; -1 for each card under an orang-utan and for each
    collected card never cashed in; each deforestation card still owned (under an orang-utan
    or in the collection) costs 2 more (``deforestation_penalty = additional``, -3 in all) or
    costs -2 in all instead of -1 (``replace``). With ``games = 2`` the second game re-deals
    everything (start player, player cards, orang-utans) and the totals add up.
    Winners: the highest total; a tie goes to the tied player with the highest orang-utan
    (points, over every game of the match), then the second-highest, and so on (a player with
    more orang-utans beats one whose list is a prefix of theirs); still tied → shared win.
    Ranking: by (total, orang-utan points descending), equal keys grouped; forfeited seats
    last and never winners.

Options
    ===================== ====================================================== ==========
    option                values                                                 default
    ===================== ====================================================== ==========
    allow_five            ``true`` allows 5 players (unofficial); without it 5    false
                          seats are refused (``seats`` error)
    deforestation_penalty ``additional`` — each deforestation card owned at the   additional
                          end costs 2 more (-3 in all) · ``replace`` — -2 in all
    games                 1 or 2 games, totals added (the publisher recommends 2) 1
    ===================== ====================================================== ==========

Deal stream (``initial_state``; everything for every game is drawn up front, ``apply`` never
draws). The canonical card order is ``R1 … R10, B1 … B10, Y1 … Y10, G1 … G10, X1 … X10``; the
canonical orang-utan order is the data file's (``OU01 … OU16``). For game g = 1 … ``games``:
    1. Start player: ``rng.shuffled`` of the canonical cards; its cards are drawn in order:
       one to each seat 0 … n-1, then one to each seat tied on the highest value (seat order),
       and so on until one seat is highest. Should the 50 cards run out, a fresh
       ``rng.shuffled`` of the canonical cards continues the draw.
    2. ``rng.shuffled`` of the canonical cards: seat s gets the cards at positions
       10·s … 10·s + 9; the rest are the undealt cards.
    3. ``rng.shuffled`` of the canonical orang-utan ids: the first ``players + 1`` are the
       layout (in that order), the rest the deck, top first.

Hidden information: every hand (a seat sees only its own), the undealt player cards, the order
of the orang-utan deck (its size is public), and everything drawn for a later game. Played
cards, the start-player draw, collections, orang-utans won, the cards under them and the
discard pile are public; history is always ``full`` (there is no history option).

State (JSON)
    ``game`` (slug), ``players``, ``options`` (filled), ``games``, ``game_number`` (current,
    from 1), ``step`` (the open step, from 1), ``over``, ``phase`` (``play`` · ``take`` ·
    ``cash_in`` · ``over``), ``current`` (seat to act, null when over), ``leader``,
    ``trick_number`` (1 … 10), ``trick`` (``seat``, ``card``, ``taken_by`` in play order),
    ``ranked`` ([1st, 2nd] once everyone played, else []), ``takers`` (ranked seats still to
    take), ``cash_ins`` (this trick's), ``hands`` (per seat, sorted — hidden), ``undealt``
    (sorted — hidden), ``deck`` (orang-utan deck, top first — hidden), ``layout``,
    ``collections`` (per seat, in the order taken), ``won`` (per seat: ``orangutan``,
    ``under``), ``discarded`` (this game's discard pile), ``start`` (this game's start draw:
    ``rounds`` of ``seat``/``card``, ``seat``), ``future`` (later games' draws — hidden),
    ``results`` (completed games: ``game``, ``scores``, ``won`` ids per seat), ``history``.

Moves: ``{"play": code}`` · ``{"take": code}`` · ``{"cash_in": {"orangutan": id}}`` (optional
``"give": [codes]``) · ``{"cash_in": null}``. ``legal_moves`` lists cash-ins without ``give``.

View (``view(state, seat)``; seat None is a spectator)
    ``game``, ``games``, ``phase``, ``current``, ``leader``, ``trick_number``, ``tricks``
    (10), ``trick`` (``seat``, ``card``, ``taken_by``), ``ranked``, ``hand`` (own, sorted;
    absent for spectators), ``hand_counts``, ``layout`` (``id``, ``name``, ``points``,
    ``requires``), ``placeholder`` (true), ``placeholder_note``, ``orangutans_left`` (deck
    size), ``collections``, ``won`` (per seat: ``orangutan``, ``name``, ``points``,
    ``under``), ``discarded`` (sorted), ``start_draw`` (``rounds``, ``seat``),
    ``game_results``, ``scores`` (match totals as if the match ended now: completed games
    plus the current game scored as it stands), ``deforestation_penalty``, ``history_mode``
    (``full``), ``history`` (resolved tricks: ``game``, ``trick``, ``leader``, ``plays``,
    ``ranked``, ``takes``, ``cash_ins`` (every decision, a declined one with ``orangutan``
    null), ``discarded``, ``refill``), ``over``.

Resolution ``public``: always ``kind`` (``play`` · ``take`` · ``cash_in``), ``step``,
``game``, ``trick``, ``seat``, ``scores``, ``phase`` and ``current`` (what opens next),
``over``. ``play``: ``card``, ``ranked`` (when the trick is complete). ``take``: ``card``,
``cash_in_open``. ``cash_in``: ``orangutan`` (null: declined), ``points``, ``discarded``,
``under``. When the step ends the trick: ``trick_end`` (``discarded``, ``refill``,
``leader``); when it ends a game: ``game_end`` (``game``, ``scores``) and, if another game
starts, ``next_game`` (``game``, ``start_draw``, ``layout``). ``private``: when a new game
starts, each seat's new ``hand``.

Timeout move: play the lowest card (value, then colour order R B Y G X); take the
highest-valued eligible coloured card (a deforestation card only when nothing else is
eligible); cash in for the affordable orang-utan with the most points (first in the layout
on a tie) — cashing in always raises the score.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from typing import Any, Literal, TypedDict, cast

from cardgames.engines.base import BaseEngine, SeatedState, is_seat
from cardgames.engines.messages import Reason
from cardgames.engines.options import check_options, check_seats, raise_if
from cardgames.engines.protocol import IllegalMove, Move, Outcome, Resolution, ToAct
from cardgames.engines.ranking import SortKey, rank, top_seats
from cardgames.engines.rng import DealRng
from cardgames.engines.states import clone, without_history

SLUG = "old-men-of-the-forest"
TRICKS = 10
HAND_SIZE = 10
COLOURS: tuple[str, ...] = ("R", "B", "Y", "G", "X")
REQUIRABLE: tuple[str, ...] = ("R", "B", "Y", "G")
DEFORESTATION = "X"
CARDS: tuple[str, ...] = tuple(f"{c}{v}" for c in COLOURS for v in range(1, 11))
_CARD_INDEX: dict[str, int] = {card: i for i, card in enumerate(CARDS)}
#: Where the (placeholder) orang-utan data lives, relative to the ``cardgames.engines`` package.
DATA_PATH = "data/old_men_of_the_forest_cards.json"


def _load_card_data() -> dict[str, Any]:
    text = (
        resources.files("cardgames.engines") / "data" / "old_men_of_the_forest_cards.json"
    ).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    seen: set[str] = set()
    for card in data["orangutans"]:
        ident = card["id"]
        if ident in seen or not isinstance(card["points"], int):
            raise ValueError(f"bad orang-utan card {ident}")
        seen.add(ident)
        requires = card["requires"]
        if not requires or any(
            colour not in REQUIRABLE or not isinstance(n, int) or n < 1
            for colour, n in requires.items()
        ):
            raise ValueError(f"bad requirement on {ident}")
    return data


CARD_DATA: dict[str, Any] = _load_card_data()
PLACEHOLDER: bool = bool(CARD_DATA.get("placeholder", False))
PLACEHOLDER_NOTE: str = str(CARD_DATA.get("note", ""))
ORANGUTANS: dict[str, dict[str, Any]] = {card["id"]: card for card in CARD_DATA["orangutans"]}
ORANGUTAN_IDS: tuple[str, ...] = tuple(card["id"] for card in CARD_DATA["orangutans"])

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Old Men of the Forest options",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "allow_five": {
            "description": (
                "Allow 5 players (unofficial). The game takes 3 or 4 players; 5 seats are "
                "refused unless this is true."
            ),
            "type": "boolean",
            "default": False,
        },
        "deforestation_penalty": {
            "description": (
                "additional: each deforestation card owned at the end costs 2 more than an "
                "ordinary card (-3 in all). replace: it costs -2 in all."
            ),
            "enum": ["additional", "replace"],
            "default": "additional",
        },
        "games": {
            "description": (
                "Number of games (the publisher recommends 2); totals add up. Every game "
                "re-deals everything and draws the start player again."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 2,
            "default": 1,
        },
    },
}

Phase = Literal["play", "take", "cash_in", "over"]


class OmfOptions(TypedDict):
    allow_five: bool
    deforestation_penalty: Literal["additional", "replace"]
    games: int


class StartDraw(TypedDict):
    """The start player's draw: the rounds of cards drawn and the seat it gave."""

    rounds: list[list[dict[str, Any]]]
    seat: int


class DrawnGame(TypedDict):
    """One game's draws, in the documented order."""

    start: StartDraw
    hands: list[list[str]]
    undealt: list[str]
    layout: list[str]
    deck: list[str]


class TrickCard(TypedDict):
    seat: int
    card: str
    taken_by: int | None


class WonOrangutan(TypedDict):
    orangutan: str
    under: list[str]


class GameResult(TypedDict):
    game: int
    scores: list[int]
    won: list[list[str]]


class OmfState(SeatedState):
    game: str
    options: OmfOptions
    games: int
    game_number: int
    future: list[DrawnGame]
    results: list[GameResult]
    history: list[dict[str, Any]]
    # The open game (set by ``_start_game``).
    start: StartDraw
    hands: list[list[str]]
    undealt: list[str]
    layout: list[str]
    deck: list[str]
    leader: int
    current: int | None
    phase: Phase
    trick_number: int
    trick: list[TrickCard]
    ranked: list[int]
    takers: list[int]
    cash_ins: list[dict[str, Any]]
    collections: list[list[str]]
    won: list[list[WonOrangutan]]
    discarded: list[str]


# --- cards -------------------------------------------------------------------------------------


def colour_of(card: str) -> str:
    return card[0]


def value_of(card: str) -> int:
    return int(card[1:])


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards in canonical order: by colour (R B Y G X), then by value."""
    return sorted(cards, key=_CARD_INDEX.__getitem__)


def colour_counts(cards: Iterable[str]) -> Counter[str]:
    return Counter(colour_of(card) for card in cards if colour_of(card) != DEFORESTATION)


def affords(collection: Iterable[str], orangutan: str) -> bool:
    """Whether ``collection`` meets the orang-utan's requirement (colours only)."""
    have = colour_counts(collection)
    requires: dict[str, int] = ORANGUTANS[orangutan]["requires"]
    return all(have[colour] >= count for colour, count in requires.items())


def default_give(collection: Iterable[str], orangutan: str) -> list[str]:
    """The cards discarded by default: per required colour, the lowest-valued ones."""
    requires: dict[str, int] = ORANGUTANS[orangutan]["requires"]
    give: list[str] = []
    for colour, count in requires.items():
        cards = sorted((c for c in collection if colour_of(c) == colour), key=value_of)
        give.extend(cards[:count])
    return sort_cards(give)


def rank_trick(trick: Sequence[TrickCard]) -> list[int]:
    """Seats of the played cards, best first: higher value, then earlier play."""
    order = sorted(range(len(trick)), key=lambda i: (-value_of(trick[i]["card"]), i))
    return [trick[i]["seat"] for i in order]


def card_penalty(card: str, penalty: str) -> int:
    """What one owned card (collection or under an orang-utan) costs at the end."""
    if colour_of(card) != DEFORESTATION:
        return 1
    return 3 if penalty == "additional" else 2


# --- drawing -----------------------------------------------------------------------------------


def draw_start_player(
    draw: Callable[[], str], players: int
) -> tuple[list[list[dict[str, Any]]], int]:
    """The start-player draw (M1): one card to each seat, the tied highest draw again.

    ``draw`` gives the next card. Returns the rounds (``seat``/``card``) and the start seat.
    """
    contenders = list(range(players))
    rounds: list[list[dict[str, Any]]] = []
    while True:
        cards = [(seat, draw()) for seat in contenders]
        rounds.append([{"seat": seat, "card": card} for seat, card in cards])
        best = max(value_of(card) for _, card in cards)
        contenders = [seat for seat, card in cards if value_of(card) == best]
        if len(contenders) == 1:
            return rounds, contenders[0]


def _draw_game(rng: DealRng, players: int) -> DrawnGame:
    """One game's draws, in the documented order."""
    pile: list[str] = []

    def draw() -> str:
        if not pile:
            pile.extend(reversed(rng.shuffled(list(CARDS))))
        return pile.pop()

    rounds, start = draw_start_player(draw, players)
    dealt = rng.shuffled(list(CARDS))
    hands = [sort_cards(dealt[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(players)]
    undealt = sort_cards(dealt[HAND_SIZE * players :])
    ous = rng.shuffled(list(ORANGUTAN_IDS))
    return {
        "start": {"rounds": rounds, "seat": start},
        "hands": hands,
        "undealt": undealt,
        "layout": ous[: players + 1],
        "deck": ous[players + 1 :],
    }


def _start_game(state: OmfState, drawn: DrawnGame) -> None:
    players = state["players"]
    state["start"] = clone(drawn["start"])
    state["hands"] = [list(hand) for hand in drawn["hands"]]
    state["undealt"] = list(drawn["undealt"])
    state["layout"] = list(drawn["layout"])
    state["deck"] = list(drawn["deck"])
    state["leader"] = drawn["start"]["seat"]
    state["current"] = drawn["start"]["seat"]
    state["phase"] = "play"
    state["trick_number"] = 1
    state["trick"] = []
    state["ranked"] = []
    state["takers"] = []
    state["cash_ins"] = []
    state["collections"] = [[] for _ in range(players)]
    state["won"] = [[] for _ in range(players)]
    state["discarded"] = []


def _game_scores(state: OmfState) -> list[int]:
    penalty = state["options"]["deforestation_penalty"]
    totals: list[int] = []
    for seat in range(state["players"]):
        total = 0
        for entry in state["won"][seat]:
            total += int(ORANGUTANS[entry["orangutan"]]["points"])
            total -= sum(card_penalty(card, penalty) for card in entry["under"])
        total -= sum(card_penalty(card, penalty) for card in state["collections"][seat])
        totals.append(total)
    return totals


def _orangutan_public(ident: str) -> dict[str, Any]:
    card = ORANGUTANS[ident]
    return {
        "id": ident,
        "name": card["name"],
        "points": card["points"],
        "requires": dict(card["requires"]),
    }


class OldMenOfTheForest(BaseEngine[OmfState]):
    slug = SLUG
    name = "Old Men of the Forest"
    min_players = 3
    max_players = 5
    rules_version = "omf-1"
    options_schema = OPTIONS_SCHEMA

    # --- setup ---------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        filled, errors = check_options(self.validator, OPTIONS_SCHEMA, options)
        seat_errors = check_seats(SLUG, players, self.min_players, self.max_players)
        if (
            not seat_errors
            and players == 5
            and "options.allow_five" not in errors
            and filled.get("allow_five") is not True
        ):
            seat_errors = {"seats": [Reason("omf_five_players", game=SLUG)]}
        errors.update(seat_errors)
        raise_if(errors)
        return filled

    def initial_state(self, players: int, options: Mapping[str, Any], rng: DealRng) -> OmfState:
        opts = cast(OmfOptions, self.validate_options(options, players))
        games = opts["games"]
        drawn = [_draw_game(rng, players) for _ in range(games)]
        # The open game's keys are set by ``_start_game`` (after these, as stored).
        state = cast(
            OmfState,
            {
                "game": SLUG,
                "players": players,
                "options": opts,
                "games": games,
                "game_number": 1,
                "step": 1,
                "over": False,
                "future": drawn[1:],
                "results": [],
                "history": [],
            },
        )
        _start_game(state, drawn[0])
        return state

    # --- acting --------------------------------------------------------------------------------

    def to_act(self, state: OmfState) -> ToAct | None:
        if state["over"]:
            return None
        return ToAct(seats=(_on_turn(state),), simultaneous=False)

    def _eligible(self, state: OmfState, seat: int) -> list[str]:
        return sort_cards(
            entry["card"]
            for entry in state["trick"]
            if entry["seat"] != seat and entry["taken_by"] is None
        )

    def _affordable(self, state: OmfState, seat: int) -> list[str]:
        collection = state["collections"][seat]
        return [ident for ident in state["layout"] if affords(collection, ident)]

    def legal_moves(self, state: OmfState, seat: int) -> list[Move]:
        if state["over"] or not is_seat(state, seat) or seat != state["current"]:
            return []
        phase = state["phase"]
        if phase == "play":
            return [{"play": card} for card in sort_cards(state["hands"][seat])]
        if phase == "take":
            return [{"take": card} for card in self._eligible(state, seat)]
        moves: list[Move] = [{"cash_in": None}]
        moves.extend(
            {"cash_in": {"orangutan": ident}} for ident in sorted(self._affordable(state, seat))
        )
        return moves

    def check_move(self, state: OmfState, seat: int, move: Move) -> None:
        if state["over"]:
            raise IllegalMove("game_over")
        if not is_seat(state, seat):
            raise IllegalMove("seat_not_in_game", seat=seat)
        if seat != state["current"]:
            raise IllegalMove("omf_not_your_turn", seat=state["current"])
        phase = state["phase"]
        if not isinstance(move, Mapping) or set(move) != {phase}:
            raise IllegalMove(f"omf_{phase}_shape")
        if phase == "play":
            card = move["play"]
            if not isinstance(card, str) or card not in _CARD_INDEX:
                raise IllegalMove("omf_play_code")
            if card not in state["hands"][seat]:
                raise IllegalMove("not_in_hand", card=card)
            return
        if phase == "take":
            card = move["take"]
            if not isinstance(card, str) or card not in _CARD_INDEX:
                raise IllegalMove("omf_take_code")
            for entry in state["trick"]:
                if entry["card"] == card:
                    if entry["seat"] == seat:
                        raise IllegalMove("omf_own_card", card=card)
                    if entry["taken_by"] is not None:
                        raise IllegalMove("omf_taken", card=card)
                    return
            raise IllegalMove("omf_not_in_trick", card=card)
        self._cash_in_plan(state, seat, move["cash_in"])

    def _cash_in_plan(
        self, state: OmfState, seat: int, choice: object
    ) -> tuple[str, list[str]] | None:
        """Validate a cash-in choice; the orang-utan and the cards to discard (None: decline)."""
        if choice is None:
            return None
        if not isinstance(choice, Mapping) or "orangutan" not in choice:
            raise IllegalMove("omf_cash_in_value")
        extra = set(choice) - {"orangutan", "give"}
        if extra:
            raise IllegalMove("omf_cash_in_fields", fields=str(sorted(map(str, extra))))
        ident = choice["orangutan"]
        if not isinstance(ident, str) or ident not in state["layout"]:
            raise IllegalMove("omf_no_orangutan", ident=repr(ident))
        collection = state["collections"][seat]
        if not affords(collection, ident):
            raise IllegalMove("omf_requirement_unmet", ident=ident)
        if "give" not in choice:
            return ident, default_give(collection, ident)
        give = choice["give"]
        if not isinstance(give, list) or not all(isinstance(c, str) for c in give):
            raise IllegalMove("omf_give_list")
        if len(set(give)) != len(give):
            raise IllegalMove("omf_give_twice")
        missing = [card for card in give if card not in collection]
        if missing:
            raise IllegalMove("omf_give_missing", cards=str(missing))
        requires: dict[str, int] = ORANGUTANS[ident]["requires"]
        counts = Counter(colour_of(card) for card in give)
        if dict(counts) != requires:
            raise IllegalMove("omf_give_inexact", ident=ident, requires=str(requires))
        return ident, sort_cards(give)

    def apply(self, state: OmfState, moves: Mapping[int, Move]) -> Resolution[OmfState]:
        (seat,) = self.checked_step(state, moves)
        move = moves[seat]
        new = _clone_state(state)
        phase = new["phase"]
        public: dict[str, Any] = {
            "kind": phase,
            "step": new["step"],
            "game": new["game_number"],
            "trick": new["trick_number"],
            "seat": seat,
        }
        private: dict[int, dict[str, Any]] = {}
        players = new["players"]
        if phase == "play":
            card: str = move["play"]
            new["hands"][seat].remove(card)
            new["trick"].append({"seat": seat, "card": card, "taken_by": None})
            public["card"] = card
            if len(new["trick"]) < players:
                new["current"] = (seat + 1) % players
            else:
                ranked = rank_trick(new["trick"])[:2]
                new["ranked"] = ranked
                new["takers"] = [ranked[1]]
                new["phase"] = "take"
                new["current"] = ranked[0]
                public["ranked"] = list(ranked)
        elif phase == "take":
            card = move["take"]
            for entry in new["trick"]:
                if entry["card"] == card:
                    entry["taken_by"] = seat
            new["collections"][seat].append(card)
            public["card"] = card
            open_cash = bool(self._affordable(new, seat))
            public["cash_in_open"] = open_cash
            if open_cash:
                new["phase"] = "cash_in"
            else:
                private = self._next_taker(new, public)
        else:
            plan = self._cash_in_plan(state, seat, move["cash_in"])
            record: dict[str, Any] = {"seat": seat, "orangutan": None, "points": None}
            record.update({"discarded": [], "under": []})
            if plan is not None:
                ident, give = plan
                under = sort_cards(c for c in new["collections"][seat] if c not in give)
                new["collections"][seat] = []
                new["layout"].remove(ident)
                new["won"][seat].append({"orangutan": ident, "under": under})
                new["discarded"].extend(give)
                record.update(
                    {
                        "orangutan": ident,
                        "points": ORANGUTANS[ident]["points"],
                        "discarded": give,
                        "under": under,
                    }
                )
            new["cash_ins"].append(clone(record))
            public.update({k: v for k, v in record.items() if k != "seat"})
            private = self._next_taker(new, public)
        new["step"] = new["step"] + 1
        public["scores"] = self.scores(new)
        public["phase"] = new["phase"]
        public["current"] = new["current"]
        public["over"] = new["over"]
        return Resolution(state=new, public=public, private=private)

    def _next_taker(self, new: OmfState, public: dict[str, Any]) -> dict[int, dict[str, Any]]:
        """After a take (no cash-in) or a cash-in decision: the next taker, or the trick ends."""
        if new["takers"]:
            new["current"] = new["takers"].pop(0)
            new["phase"] = "take"
            return {}
        return self._end_trick(new, public)

    def _end_trick(self, new: OmfState, public: dict[str, Any]) -> dict[int, dict[str, Any]]:
        players = new["players"]
        trick = new["trick"]
        ranked = new["ranked"]
        unclaimed = [entry["card"] for entry in trick if entry["taken_by"] is None]
        new["discarded"].extend(unclaimed)
        refill: list[str] = []
        while len(new["layout"]) < players + 1 and new["deck"]:
            ident = new["deck"].pop(0)
            new["layout"].append(ident)
            refill.append(ident)
        takes = [
            {"seat": taker, "card": entry["card"]}
            for taker in ranked
            for entry in trick
            if entry["taken_by"] == taker
        ]
        new["history"].append(
            {
                "game": new["game_number"],
                "trick": new["trick_number"],
                "leader": new["leader"],
                "plays": [{"seat": entry["seat"], "card": entry["card"]} for entry in trick],
                "ranked": list(ranked),
                "takes": takes,
                "cash_ins": new["cash_ins"],
                "discarded": list(unclaimed),
                "refill": list(refill),
            }
        )
        leader = ranked[0]
        public["trick_end"] = {"discarded": unclaimed, "refill": refill, "leader": leader}
        new["trick"] = []
        new["ranked"] = []
        new["takers"] = []
        new["cash_ins"] = []
        new["leader"] = leader
        if new["trick_number"] < TRICKS:
            new["trick_number"] = new["trick_number"] + 1
            new["phase"] = "play"
            new["current"] = leader
            return {}
        scores = _game_scores(new)
        new["results"].append(
            {
                "game": new["game_number"],
                "scores": scores,
                "won": [[entry["orangutan"] for entry in won] for won in new["won"]],
            }
        )
        public["game_end"] = {"game": new["game_number"], "scores": list(scores)}
        if not new["future"]:
            new["over"] = True
            new["phase"] = "over"
            new["current"] = None
            return {}
        new["game_number"] = new["game_number"] + 1
        _start_game(new, new["future"].pop(0))
        public["next_game"] = {
            "game": new["game_number"],
            "start_draw": clone(new["start"]),
            "layout": list(new["layout"]),
        }
        return {seat: {"hand": list(new["hands"][seat])} for seat in range(players)}

    # --- reading -------------------------------------------------------------------------------

    def view(self, state: OmfState, seat: int | None) -> dict[str, Any]:
        result: dict[str, Any] = {
            "game": state["game_number"],
            "games": state["games"],
            "phase": state["phase"],
            "current": state["current"],
            "leader": state["leader"],
            "trick_number": state["trick_number"],
            "tricks": TRICKS,
            "trick": [dict(entry) for entry in state["trick"]],
            "ranked": list(state["ranked"]),
            "hand_counts": [len(hand) for hand in state["hands"]],
            "layout": [_orangutan_public(ident) for ident in state["layout"]],
            "placeholder": PLACEHOLDER,
            "placeholder_note": PLACEHOLDER_NOTE,
            "orangutans_left": len(state["deck"]),
            "collections": [list(cards) for cards in state["collections"]],
            "won": [
                [
                    {
                        "orangutan": entry["orangutan"],
                        "name": ORANGUTANS[entry["orangutan"]]["name"],
                        "points": ORANGUTANS[entry["orangutan"]]["points"],
                        "under": list(entry["under"]),
                    }
                    for entry in won
                ]
                for won in state["won"]
            ],
            "discarded": sort_cards(state["discarded"]),
            "start_draw": clone(state["start"]),
            "game_results": [
                {"game": r["game"], "scores": list(r["scores"])} for r in state["results"]
            ],
            "scores": self.scores(state),
            "deforestation_penalty": state["options"]["deforestation_penalty"],
            "history_mode": "full",
            "history": json.loads(json.dumps(state["history"])),
            "over": state["over"],
        }
        if seat is not None and is_seat(state, seat):
            result["hand"] = sort_cards(state["hands"][seat])
        return result

    def scores(self, state: OmfState) -> list[int]:
        """Match totals: completed games plus the current game as if it ended now."""
        totals = [0] * state["players"]
        for result in state["results"]:
            totals = [a + b for a, b in zip(totals, result["scores"], strict=True)]
        if not state["over"]:
            totals = [a + b for a, b in zip(totals, _game_scores(state), strict=True)]
        return totals

    def orangutan_points(self, state: OmfState) -> list[list[int]]:
        """Per seat, the points of every orang-utan won in the match, highest first."""
        ids: list[list[str]] = [[] for _ in range(state["players"])]
        for result in state["results"]:
            for seat, won in enumerate(result["won"]):
                ids[seat].extend(won)
        if not state["over"]:
            for seat, taken in enumerate(state["won"]):
                ids[seat].extend(entry["orangutan"] for entry in taken)
        return [
            sorted((int(ORANGUTANS[i]["points"]) for i in seat_ids), reverse=True)
            for seat_ids in ids
        ]

    def outcome(self, state: OmfState, forfeited: frozenset[int] = frozenset()) -> Outcome | None:
        if not state["over"]:
            return None
        totals = self.scores(state)
        points = self.orangutan_points(state)
        keys: list[SortKey] = [
            (total, *seat_points) for total, seat_points in zip(totals, points, strict=True)
        ]
        winners = top_seats(keys, forfeited)
        ranking = rank(keys, forfeited)
        return Outcome(scores=tuple(totals), winners=winners, ranking=ranking)

    def timeout_move(self, state: OmfState, seat: int) -> Move:
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMove("no_move_due")
        phase = state["phase"]
        if phase == "play":
            hand = state["hands"][seat]
            return {"play": min(hand, key=lambda c: (value_of(c), _CARD_INDEX[c]))}
        if phase == "take":
            eligible = self._eligible(state, seat)
            best = min(
                eligible,
                key=lambda c: (colour_of(c) == DEFORESTATION, -value_of(c), _CARD_INDEX[c]),
            )
            return {"take": best}
        affordable = self._affordable(state, seat)
        best_ou = max(affordable, key=lambda i: int(ORANGUTANS[i]["points"]))
        return {"cash_in": {"orangutan": best_ou}}

    def shuffle_hidden(self, state: OmfState, seat: int | None, rng: DealRng) -> OmfState:
        """Redraw the other seats' hands among every card unseen by ``seat`` (their hands and
        the undealt cards), the orang-utan deck order, and every later game's draws."""
        new = _clone_state(state)
        players = new["players"]
        others = [s for s in range(players) if s != seat]
        pool = list(new["undealt"])
        for other in others:
            pool.extend(new["hands"][other])
        rng.shuffle(pool)
        for other in others:
            size = len(new["hands"][other])
            new["hands"][other] = sort_cards(pool[:size])
            pool = pool[size:]
        new["undealt"] = sort_cards(pool)
        rng.shuffle(new["deck"])
        new["future"] = [_draw_game(rng, players) for _ in range(len(new["future"]))]
        return new


def _clone_state(state: OmfState) -> OmfState:
    """A copy safe to change, except that resolved history entries (never changed once
    appended) are shared with ``state``."""
    new = without_history(state)
    new["history"] = list(state["history"])
    return new


def _on_turn(state: OmfState) -> int:
    seat = state["current"]
    assert seat is not None  # only a finished match has nobody on turn
    return seat


ENGINE = OldMenOfTheForest()
