"""Memory: the worked examples Y1-Y4 of the rules, every option, views, validation, and random
playouts checking the protocol's invariants (no view ever names a face-down card)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from cardgames.engines.memory import CARD_ORDER, ENGINE, deck, rank_of
from cardgames.engines.protocol import IllegalMove, InvalidOptions, Resolution, State, ToAct
from cardgames.engines.rng import DealRng
from tests.scale import scaled

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000001"


def make_rng(players: int = 2) -> DealRng:
    return DealRng(SEED, MATCH_ID, ["alice", *[None] * (players - 1)])


def start(players: int = 2, placed: dict[int, str] | None = None, **options: Any) -> State:
    """A fresh game with seat 0 to flip first and the cards in ``placed`` on those positions
    (the other cards keep their drawn order on the remaining positions)."""
    state = ENGINE.initial_state(players, options, make_rng(players))
    state["turn"] = 0
    placed = placed or {}
    rest = [card for card in state["cards"] if card not in placed.values()]
    cards: list[str] = []
    for position in range(len(state["cards"])):
        cards.append(placed[position] if position in placed else rest.pop(0))
    state["cards"] = cards
    return state


def flip(state: State, position: int, seat: int | None = None) -> Resolution:
    acting = ENGINE.to_act(state)
    assert acting is not None
    who = acting.seats[0] if seat is None else seat
    return ENGINE.apply(state, {who: {"flip": position}})


def flips(state: State, *positions: int) -> State:
    for position in positions:
        state = flip(state, position).state
    return state


def position_of(state: State, card: str) -> int:
    return int(state["cards"].index(card))


# --- worked examples -----------------------------------------------------------------------------


def test_y1_a_pair_is_taken_and_the_flipper_goes_again() -> None:
    state = start(2, {3: "7H", 9: "7C"})
    first = flip(state, 3)
    assert first.public["flip"] == 1
    assert first.public["card"] == "7H"
    assert ENGINE.to_act(first.state) == ToAct((0,), simultaneous=False)
    second = flip(first.state, 9)
    assert second.public["result"] == "pair"
    assert second.public["pair"] == ["7H", "7C"]
    assert second.public["next"] == 0
    assert ENGINE.scores(second.state) == [1, 0]
    assert ENGINE.to_act(second.state) == ToAct((0,), simultaneous=False)
    view = ENGINE.view(second.state, 1)
    assert view["grid"][3] == view["grid"][9] == "taken"
    assert view["taken"] == [["7H", "7C"], []]
    assert view["pairs_left"] == 25
    assert {"flip": 3} not in ENGINE.legal_moves(second.state, 0)


def test_y2_a_miss_passes_the_turn_and_stays_visible_until_the_next_first_flip() -> None:
    state = start(2, {3: "7H", 9: "KC", 5: "2S"})
    resolution = flip(flip(state, 3).state, 9)
    state = resolution.state
    assert resolution.public["result"] == "miss"
    assert resolution.public["pair"] is None
    assert resolution.public["next"] == 1
    assert ENGINE.to_act(state) == ToAct((1,), simultaneous=False)
    for viewer in (None, 0, 1):
        view = ENGINE.view(state, viewer)
        assert view["grid"][3] == "7H"
        assert view["grid"][9] == "KC"
        assert view["showing"] == [3, 9]
    # For the next player's first flip they count as face down.
    legal = ENGINE.legal_moves(state, 1)
    assert {"flip": 3} in legal
    assert {"flip": 9} in legal
    after = flip(state, 5)
    assert after.public["turned_down"] == [3, 9]
    for viewer in (None, 0, 1):
        view = ENGINE.view(after.state, viewer)
        assert view["grid"][3] is None
        assert view["grid"][9] is None
        assert view["grid"][5] == "2S"
        assert view["showing"] == []
    assert {"flip": 3} in ENGINE.legal_moves(after.state, 1)
    assert {"flip": 5} not in ENGINE.legal_moves(after.state, 1)


def test_y2_the_next_player_may_flip_a_showing_card_first() -> None:
    state = flips(start(2, {3: "7H", 9: "KC", 20: "7S"}), 3, 9)
    after = flip(state, 3)
    assert after.public["card"] == "7H"
    assert after.public["turned_down"] == [3, 9]
    view = ENGINE.view(after.state, 0)
    assert view["grid"][3] == "7H"
    assert view["grid"][9] is None
    assert view["flipped"] == [3]
    taken = flip(after.state, 20)
    assert taken.public["result"] == "pair"
    assert ENGINE.scores(taken.state) == [0, 1]


@pytest.mark.parametrize(
    ("move", "seat"),
    [
        ({"flip": 3}, 0),  # taken
        ({"flip": 12}, 0),  # already flipped this turn
        ({"flip": 14}, 1),  # out of turn
        ({"flip": 52}, 0),  # off the grid
        ({"flip": -1}, 0),
        ({"flip": True}, 0),
        ({"flip": "14"}, 0),
        ({"card": 14}, 0),
        ({"flip": 14, "also": 1}, 0),
    ],
)
def test_y3_illegal_flips_are_refused_and_change_nothing(move: dict[str, Any], seat: int) -> None:
    state = flip(flips(start(2, {3: "7H", 9: "7C"}), 3, 9), 12).state
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, seat, move)
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {seat: move})
    assert state == before


def test_y3_messages_never_name_hidden_cards() -> None:
    state = flip(start(2), 12).state
    for move, seat in (({"flip": 12}, 0), ({"flip": 14}, 1)):
        with pytest.raises(IllegalMove) as caught:
            ENGINE.check_move(state, seat, move)
        assert not any(card in str(caught.value) for card in CARD_ORDER)


def test_y3_two_moves_or_none_are_refused() -> None:
    state = start(2)
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {0: {"flip": 1}, 1: {"flip": 2}})
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, {})


def test_y4_the_last_pair_ends_the_game() -> None:
    state = start(3, pairs=6)
    cards: list[str] = state["cards"]
    by_rank: dict[int, list[int]] = {}
    for position, card in enumerate(cards):
        by_rank.setdefault(rank_of(card), []).append(position)
    resolution: Resolution | None = None
    for positions in by_rank.values():
        assert ENGINE.outcome(state) is None
        resolution = flip(flip(state, positions[0]).state, positions[1])
        state = resolution.state
    assert resolution is not None
    assert resolution.public["over"] is True
    assert resolution.public["next"] is None
    assert resolution.public["pairs_left"] == 0
    assert ENGINE.to_act(state) is None
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in range(3))
    with pytest.raises(IllegalMove):
        ENGINE.check_move(state, 0, {"flip": 0})
    with pytest.raises(IllegalMove):
        ENGINE.timeout_move(state, 0)
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.scores == (6, 0, 0)
    assert outcome.winners == (0,)
    assert outcome.ranking == ((0,), (1, 2))
    view = ENGINE.view(state, None)
    assert view["over"] is True
    assert view["turn"] is None
    assert view["grid"] == ["taken"] * 12


# --- deal ----------------------------------------------------------------------------------------


def test_card_order() -> None:
    assert CARD_ORDER[:4] == ("AS", "AH", "2S", "2H")
    assert CARD_ORDER[24:28] == ("KS", "KH", "AD", "AC")
    assert CARD_ORDER[-2:] == ("KD", "KC")
    assert len(set(CARD_ORDER)) == 52
    assert deck(6) == ["AS", "AH", "2S", "2H", "3S", "3H", "4S", "4H", "5S", "5H", "6S", "6H"]
    assert deck(14)[-2:] == ["AD", "AC"]
    assert [rank_of(card) for card in ("AS", "TD", "JH", "QC", "KS")] == [1, 10, 11, 12, 13]


@pytest.mark.parametrize(("pairs", "players"), [(6, 2), (13, 4), (14, 6), (26, 3)])
def test_deal_draw_order(pairs: int, players: int) -> None:
    state = ENGINE.initial_state(players, {"pairs": pairs}, make_rng(players))
    rng = make_rng(players)
    assert state["cards"] == rng.shuffled(deck(pairs))
    assert state["turn"] == rng.randbelow(players)
    assert state["owner"] == [None] * (2 * pairs)
    assert ENGINE.view(state, 0)["grid"] == [None] * (2 * pairs)
    assert ENGINE.view(state, None)["pairs_left"] == pairs
    assert ENGINE.initial_state(players, {"pairs": pairs}, make_rng(players)) == state


def test_start_player_is_drawn() -> None:
    starts = set()
    for number in range(40):
        rng = DealRng(bytes([number]) * 32, MATCH_ID, [None] * 4)
        starts.add(ENGINE.initial_state(4, {"pairs": 6}, rng)["turn"])
    assert starts == {0, 1, 2, 3}


def test_any_two_cards_of_a_rank_pair() -> None:
    state = flips(start(2, {0: "AS", 1: "AD"}, pairs=14), 0, 1)
    assert ENGINE.scores(state) == [1, 0]


# --- options -------------------------------------------------------------------------------------


def test_defaults() -> None:
    assert ENGINE.validate_options({}, 2) == {
        "pairs": 26,
        "flips_visible_to": "all",
        "another_turn_on_pair": True,
        "scoring": "pairs",
        "history": "table_only",
    }
    assert ENGINE.history_mode(ENGINE.validate_options({}, 2)) == "table_only"
    assert ENGINE.history_mode({"history": "full"}) == "full"
    for prop in ENGINE.options_schema["properties"].values():
        assert "default" in prop
    assert ENGINE.options_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"pairs": 5}, "options.pairs"),
        ({"pairs": 27}, "options.pairs"),
        ({"pairs": "10"}, "options.pairs"),
        ({"pairs": 7.5}, "options.pairs"),
        ({"flips_visible_to": "nobody"}, "options.flips_visible_to"),
        ({"another_turn_on_pair": "yes"}, "options.another_turn_on_pair"),
        ({"scoring": "cards"}, "options.scoring"),
        ({"history": "none"}, "options.history"),
        ({"colour": "red"}, "options.colour"),
    ],
)
def test_invalid_options(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options(options, 2)
    assert field in caught.value.errors


@pytest.mark.parametrize("players", [0, 1, 7, True])
def test_bad_player_count(players: int) -> None:
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.validate_options({}, players)
    assert "seats" in caught.value.errors


def test_pairs_range() -> None:
    assert ENGINE.validate_options({"pairs": 6.0}, 2)["pairs"] == 6
    for pairs in (6, 26):
        state = ENGINE.initial_state(6, {"pairs": pairs}, make_rng(6))
        assert sorted(state["cards"]) == sorted(deck(pairs))
        assert len(ENGINE.legal_moves(state, state["turn"])) == 2 * pairs


def test_another_turn_on_pair_off_passes_the_turn() -> None:
    state = start(3, {3: "7H", 9: "7C"}, another_turn_on_pair=False)
    resolution = flip(flip(state, 3).state, 9)
    assert resolution.public["result"] == "pair"
    assert resolution.public["next"] == 1
    assert ENGINE.scores(resolution.state) == [1, 0, 0]
    assert ENGINE.to_act(resolution.state) == ToAct((1,), simultaneous=False)
    assert ENGINE.view(resolution.state, 1)["showing"] == []


def test_turn_passes_clockwise_and_wraps() -> None:
    state = start(3, {0: "AS", 1: "2S", 2: "3S", 3: "4S", 4: "5S", 5: "6S"})
    assert ENGINE.to_act(flips(state, 0, 1)) == ToAct((1,), simultaneous=False)
    assert ENGINE.to_act(flips(state, 0, 1, 2, 3)) == ToAct((2,), simultaneous=False)
    assert ENGINE.to_act(flips(state, 0, 1, 2, 3, 4, 5)) == ToAct((0,), simultaneous=False)


def test_scoring_ranks() -> None:
    placed = {0: "7H", 1: "7S", 2: "KS", 3: "KH", 4: "AS", 5: "AH", 6: "2S"}
    state = flips(start(2, placed, scoring="ranks"), 0, 1, 2, 3)
    assert ENGINE.scores(state) == [20, 0]
    state = flips(state, 4, 6, 4, 5)  # seat 0 misses, seat 1 takes the aces
    assert ENGINE.scores(state) == [20, 1]
    assert ENGINE.view(state, None)["scores"] == [20, 1]


def test_scoring_pairs_counts_pairs() -> None:
    state = flips(start(2, {0: "KS", 1: "KH", 2: "2S", 3: "2H"}), 0, 1, 2, 3)
    assert ENGINE.scores(state) == [2, 0]


def test_ties_share_the_win() -> None:
    state = start(2, pairs=6)
    state["taken"] = [["AS", "AH", "2S", "2H", "3S", "3H"], ["4S", "4H", "5S", "5H", "6S", "6H"]]
    state["owner"] = [0] * 12
    state["over"] = True
    state["turn"] = None
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0, 1)
    assert outcome.ranking == ((0, 1),)
    forfeited = ENGINE.outcome(state, frozenset({0}))
    assert forfeited is not None
    assert forfeited.winners == (1,)
    assert forfeited.ranking == ((1,), (0,))
    state["options"]["scoring"] = "ranks"
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.scores == (6, 15)
    assert outcome.winners == (1,)


def test_timeout_move_is_the_lowest_face_down_position() -> None:
    state = flips(start(2, {0: "AS", 1: "AH", 2: "2S"}), 0, 1)
    assert ENGINE.timeout_move(state, 0) == {"flip": 2}
    state = flip(state, 2).state
    assert ENGINE.timeout_move(state, 0) == {"flip": 3}
    assert ENGINE.echoes(state, {"flip": 3}) is True


# --- visibility ----------------------------------------------------------------------------------


def test_flips_visible_to_all() -> None:
    state = start(3, {3: "7H", 9: "KC"})
    first = flip(state, 3)
    assert first.public["card"] == "7H"
    assert first.private == {}
    for viewer in (None, 0, 1, 2):
        assert ENGINE.view(first.state, viewer)["grid"][3] == "7H"


def test_flips_visible_to_flipper() -> None:
    state = start(3, {3: "7H", 9: "KC", 5: "2S"}, flips_visible_to="flipper")
    first = flip(state, 3)
    assert first.public["card"] is None
    assert first.private == {0: {"card": "7H"}}
    assert "7H" not in json.dumps(first.public)
    assert ENGINE.view(first.state, 0)["grid"][3] == "7H"
    for viewer in (None, 1, 2):
        view = ENGINE.view(first.state, viewer)
        assert view["grid"][3] is None
        assert view["flipped"] == [3]
    miss = flip(first.state, 9)
    assert miss.public["card"] is None
    assert miss.public["result"] == "miss"
    assert miss.private == {0: {"card": "KC"}}
    assert not any(card in json.dumps(miss.public) for card in ("7H", "KC"))
    # Still visible to their flipper only, until the next player's first flip.
    assert ENGINE.view(miss.state, 0)["grid"][3] == "7H"
    assert ENGINE.view(miss.state, 0)["grid"][9] == "KC"
    for viewer in (None, 1, 2):
        view = ENGINE.view(miss.state, viewer)
        assert view["grid"][3] is None
        assert view["grid"][9] is None
        assert view["showing"] == [3, 9]
    after = flip(miss.state, 5)
    assert after.private == {1: {"card": "2S"}}
    assert ENGINE.view(after.state, 0)["grid"][3] is None
    assert ENGINE.view(after.state, 1)["grid"][5] == "2S"
    assert ENGINE.view(after.state, 0)["grid"][5] is None


def test_taken_pairs_are_public_under_flipper() -> None:
    state = start(2, {3: "7H", 9: "7C"}, flips_visible_to="flipper")
    first = flip(state, 3)
    assert first.public["card"] is None
    second = flip(first.state, 9)
    assert second.public["card"] is None
    assert second.public["pair"] == ["7H", "7C"]
    assert second.public["result"] == "pair"
    assert second.private == {0: {"card": "7C"}}
    for viewer in (None, 0, 1):
        view = ENGINE.view(second.state, viewer)
        assert view["taken"] == [["7H", "7C"], []]
        assert view["grid"][3] == "taken"


# --- history -------------------------------------------------------------------------------------


def test_history_table_only_shows_only_the_table() -> None:
    state = flips(start(2, {3: "7H", 9: "KC", 5: "2S", 6: "QD"}), 3, 9, 5, 6)
    assert state["history"]  # kept in the state for replays
    for viewer in (None, 0, 1):
        view = ENGINE.view(state, viewer)
        assert view["history_mode"] == "table_only"
        assert view["history"] == []
        assert "7H" not in json.dumps(view)  # seen by everyone, now face down again
        assert view["grid"][5] == "2S"


def test_history_full_with_all() -> None:
    state = flips(start(2, {3: "7H", 9: "KC", 5: "2S", 6: "QD"}, history="full"), 3, 9, 5)
    for viewer in (None, 0, 1):
        view = ENGINE.view(state, viewer)
        assert view["history_mode"] == "full"
        assert view["history"] == [
            {"step": 1, "seat": 0, "position": 3, "flip": 1, "result": None, "card": "7H"},
            {"step": 2, "seat": 0, "position": 9, "flip": 2, "result": "miss", "card": "KC"},
            {"step": 3, "seat": 1, "position": 5, "flip": 1, "result": None, "card": "2S"},
        ]
        assert view["grid"][3] is None


def test_history_full_with_flipper_shows_each_viewer_its_own_flips() -> None:
    placed = {3: "7H", 9: "KC", 5: "2S", 6: "2C"}
    state = start(2, placed, history="full", flips_visible_to="flipper")
    state = flips(state, 3, 9, 5, 6)  # seat 0 misses, seat 1 takes the twos
    cards = {
        viewer: [entry["card"] for entry in ENGINE.view(state, viewer)["history"]]
        for viewer in (None, 0, 1)
    }
    assert cards[0] == ["7H", "KC", "2S", "2C"]
    assert cards[1] == [None, None, "2S", "2C"]
    assert cards[None] == [None, None, "2S", "2C"]
    results = [entry["result"] for entry in ENGINE.view(state, None)["history"]]
    assert results == [None, "miss", None, "pair"]


# --- shuffle_hidden ------------------------------------------------------------------------------


def test_shuffle_hidden_keeps_what_the_viewer_saw_under_full_history() -> None:
    placed = {3: "7H", 9: "KC", 5: "2S", 6: "QD"}
    state = start(2, placed, history="full", flips_visible_to="flipper")
    state = flips(state, 3, 9, 5, 6)
    rng = make_rng()
    for _ in range(10):
        mine = ENGINE.shuffle_hidden(state, 0, rng)
        assert [mine["cards"][p] for p in (3, 9)] == ["7H", "KC"]
        theirs = ENGINE.shuffle_hidden(state, 1, rng)
        assert [theirs["cards"][p] for p in (5, 6)] == ["2S", "QD"]
    moved = {ENGINE.shuffle_hidden(state, 1, rng)["cards"][3] for _ in range(10)}
    assert len(moved) > 1


def test_shuffle_hidden_under_table_only_redraws_past_sightings() -> None:
    state = flip(flips(start(2, {3: "7H", 9: "KC"}), 3, 9), 12).state
    rng = make_rng()
    seen = {ENGINE.shuffle_hidden(state, 0, rng)["cards"][3] for _ in range(10)}
    assert len(seen) > 1
    for _ in range(5):
        assert ENGINE.shuffle_hidden(state, 0, rng)["cards"][12] == state["cards"][12]


# --- random playouts -----------------------------------------------------------------------------

PLAYOUTS = scaled(60)  # FACEDOWN_TEST_SCALE plays more (tests/scale.py)
CHOICES: dict[str, list[Any]] = {
    "pairs": [6, 7, 8],
    "flips_visible_to": ["all", "flipper"],
    "another_turn_on_pair": [True, False],
    "scoring": ["pairs", "ranks"],
    "history": ["full", "table_only"],
}


def playout_rng(number: int, players: int) -> DealRng:
    seed = random.Random(number).randbytes(32)
    return DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", [None] * players)


def entitled(state: State, viewer: int | None) -> set[int]:
    """Positions whose cards ``viewer`` may know, worked out from the rules, not the engine."""
    everyone = state["options"]["flips_visible_to"] == "all"
    known = {p for p, owner in enumerate(state["owner"]) if owner is not None}
    if state["flipped"] and (everyone or viewer == state["turn"]):
        known.update(state["flipped"])
    if state["showing"] and (everyone or viewer == state["shown_by"]):
        known.update(state["showing"])
    if state["options"]["history"] == "full":
        known.update(e["position"] for e in state["history"] if everyone or e["seat"] == viewer)
    return known


def roundtrip(value: Any) -> None:
    assert json.loads(json.dumps(value)) == value


def check_views(state: State, shuffler: DealRng) -> int:
    changed = 0
    for viewer in [None, *range(state["players"])]:
        view = ENGINE.view(state, viewer)
        text = json.dumps(view)
        assert json.loads(text) == view
        assert "hand" not in view
        assert view["scores"] == ENGINE.scores(state)
        assert len(view["grid"]) == len(state["cards"])
        if view["history_mode"] == "table_only":
            assert view["history"] == []
        known = entitled(state, viewer)
        for position, card in enumerate(state["cards"]):
            if position not in known:
                assert f'"{card}"' not in text, f"{viewer} sees face-down {card}"
        hidden = ENGINE.shuffle_hidden(state, viewer, shuffler)
        assert ENGINE.view(hidden, viewer) == view
        assert sorted(hidden["cards"]) == sorted(state["cards"])
        changed += hidden["cards"] != state["cards"]
    return changed


def playout(number: int) -> tuple[int, int, bool]:
    chooser = random.Random(number)
    players = 2 + number % 5
    options = {name: chooser.choice(values) for name, values in CHOICES.items()}
    state = ENGINE.initial_state(players, options, playout_rng(number, players))
    shuffler = playout_rng(number + 10**6, players)
    checks = changed = 0
    while True:
        before = json.loads(json.dumps(state))
        assert before == state
        changed += check_views(state, shuffler)
        checks += players + 1
        acting = ENGINE.to_act(state)
        if acting is None:
            break
        assert ENGINE.outcome(state) is None
        assert not acting.simultaneous
        assert acting.seats == (state["turn"],)
        for seat in range(players):
            legal = ENGINE.legal_moves(state, seat)
            if seat not in acting.seats:
                assert legal == []
                with pytest.raises(IllegalMove):
                    ENGINE.check_move(state, seat, {"flip": 0})
                continue
            assert legal
            for move in legal:
                ENGINE.check_move(state, seat, move)
            assert ENGINE.timeout_move(state, seat) in legal
        seat = acting.seats[0]
        move = chooser.choice(ENGINE.legal_moves(state, seat))
        resolution = ENGINE.apply(state, {seat: move})
        assert state == before, "apply mutated its input"
        roundtrip(resolution.public)
        roundtrip({str(s): data for s, data in resolution.private.items()})
        if options["flips_visible_to"] == "flipper":
            card = state["cards"][move["flip"]]
            assert resolution.public["card"] is None
            assert resolution.private == {seat: {"card": card}}
            if resolution.public["result"] != "pair":
                assert card not in json.dumps(resolution.public)
        assert resolution.public["step"] == state["step"]
        state = resolution.state
        assert state["step"] < 4000
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert list(outcome.scores) == ENGINE.scores(state)
    assert sum(len(cards) for cards in state["taken"]) == len(state["cards"])
    if options["scoring"] == "pairs":
        assert sum(outcome.scores) == options["pairs"]
    best = max(outcome.scores)
    assert outcome.winners == tuple(s for s in range(players) if outcome.scores[s] == best)
    assert sorted(s for group in outcome.ranking for s in group) == list(range(players))
    forfeited = frozenset({0})
    lost = ENGINE.outcome(state, forfeited)
    assert lost is not None
    assert 0 not in lost.winners
    assert lost.ranking[-1] == (0,)
    return checks, changed, len(outcome.winners) == 1


def test_random_playouts() -> None:
    checks = changed = decided = 0
    for number in range(PLAYOUTS):
        c, ch, one = playout(number)
        checks += c
        changed += ch
        decided += one
    assert changed > checks // 2  # hidden cards are genuinely redrawn
    assert 0 < decided < PLAYOUTS  # decided games as well as shared wins


def test_same_seed_same_game() -> None:
    options = {"pairs": 6}
    a = ENGINE.initial_state(4, options, playout_rng(7, 4))
    b = ENGINE.initial_state(4, options, playout_rng(7, 4))
    assert a == b
    assert a != ENGINE.initial_state(4, options, playout_rng(8, 4))
