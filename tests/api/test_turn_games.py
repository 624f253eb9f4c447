"""Turn-based hidden-information games over HTTP: every player count with bots in the seats,
and a human seat whose every answer is checked for leaks at every step."""

from __future__ import annotations

import json
import random

import pytest

from cardgames.bots.base import concrete
from cardgames.engines.rng import DealRng
from games.catalog import get_engine
from games.models import Match
from games.services.bot_seats import bot_moves_play
from tests.players import Player, make_player

# (game, seat count, options): small variants keep the playouts short.
SETUPS = [
    ("memory", 2, {"pairs": 6}),
    ("memory", 3, {"pairs": 6, "flips_visible_to": "flipper"}),
    ("memory", 4, {"pairs": 8, "history": "full"}),
    ("memory", 5, {"pairs": 6, "scoring": "ranks"}),
    ("memory", 6, {"pairs": 7, "another_turn_on_pair": False}),
    ("old-men-of-the-forest", 3, {}),
    ("old-men-of-the-forest", 4, {"deforestation_penalty": "replace"}),
    ("old-men-of-the-forest", 5, {"allow_five": True}),
    ("xato", 3, {"max_calls": 12, "history": "table_only"}),
    ("xato", 4, {"max_calls": 12, "strict_memory": True}),
    ("xato", 5, {"max_calls": 10, "life_cards": 1}),
    ("xato", 6, {"max_calls": 10, "turn_direction": "counterclockwise"}),
]


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _bots_until_human(match_id: str) -> Match:
    """Let the bots move until the match awaits the human (or ends)."""
    for _ in range(2000):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE or not bot_moves_play(
            match_id=match_id, step=match.step
        ):
            return match
    raise AssertionError("bots did not stop")


# Every game at every seat count, the sealed-bid ones included.
ALL_BOT_SETUPS = [
    *SETUPS,
    ("gops", 2, {}),
    ("gops", 3, {"num_cards": 8}),
    ("hols-der-geier", 2, {}),
    ("hols-der-geier", 3, {"history": "table_only"}),
    ("hols-der-geier", 4, {}),
    ("hols-der-geier", 5, {"final_tiebreak": "highest_mouse"}),
]


@pytest.mark.parametrize(("game", "count", "options"), ALL_BOT_SETUPS)
def test_all_bot_match_plays_to_the_end(db, game, count, options):
    host = make_player()
    seats = [{"bot": "greedy" if i % 2 else "random"} for i in range(count)]
    created = host.create(game, seats, options=options)
    assert created.status_code == 201, created.content
    match = _bots_until_human(created.json()["id"])
    assert match.status == Match.Status.FINISHED
    final = host.match(str(match.id))
    assert final["result"]["reason"] == "completed"
    assert sorted(s for group in final["result"]["ranking"] for s in group) == list(range(count))


def _same_after_shuffle(
    match_id: str, viewers: list[Player], seats: list[int | None], rng: DealRng
) -> None:
    """What each viewer reads is unchanged when everything hidden from it is redrawn."""
    match = Match.objects.get(pk=match_id)
    engine = get_engine(match.game)
    assert engine is not None and match.state is not None
    for viewer, seat in zip(viewers, seats, strict=True):
        before = viewer.get(f"/matches/{match_id}")
        shuffled = engine.shuffle_hidden(match.state, seat, rng)
        Match.objects.filter(pk=match_id).update(state=shuffled)
        after = viewer.get(f"/matches/{match_id}")
        Match.objects.filter(pk=match_id).update(state=match.state)
        assert after.json() == before.json(), f"seat {seat} reads hidden values"
        assert after["ETag"] == before["ETag"]


@pytest.mark.parametrize(
    ("game", "count", "options"), [SETUPS[0], SETUPS[1], SETUPS[5], SETUPS[8], SETUPS[9]]
)
def test_a_human_seat_never_reads_hidden_values(db, game, count, options):
    human, spectator = make_player(), make_player()
    seats = ["me", *({"bot": "random"} for _ in range(count - 1))]
    match_id = human.create(game, seats, options=options).json()["id"]
    rng, chooser = DealRng(bytes(32), match_id, []), random.Random(count)
    for _ in range(600):
        match = _bots_until_human(match_id)
        if match.status != Match.Status.ACTIVE:
            break
        _same_after_shuffle(match_id, [human, spectator], [0, None], rng)
        seen = human.match(match_id)
        assert seen["legal_moves"], seen["phase"]
        move = concrete(chooser.choice(seen["legal_moves"]), chooser)
        answer = human.move(match_id, seen["step"], move)
        assert answer.status_code == 202, answer.content
    assert Match.objects.get(pk=match_id).status == Match.Status.FINISHED


def test_memory_cards_seen_earlier_are_not_in_a_table_only_view(db):
    human = make_player()
    match_id = human.create(
        "memory", ["me", {"bot": "random"}], options={"pairs": 6, "another_turn_on_pair": False}
    ).json()["id"]
    seen_cards: dict[int, str] = {}
    for _ in range(40):
        match = _bots_until_human(match_id)
        if match.status != Match.Status.ACTIVE:
            break
        view = human.match(match_id)["view"]
        face_up = {i for i, card in enumerate(view["grid"]) if card not in (None, "taken")}
        for position in seen_cards:
            if position not in face_up and view["grid"][position] != "taken":
                assert view["grid"][position] is None, "a card seen earlier is still shown"
        for i in face_up:
            seen_cards[i] = view["grid"][i]
        assert view["history"] == []
        legal = human.match(match_id)["legal_moves"]
        human.move(match_id, human.match(match_id)["step"], legal[0])
    assert seen_cards  # the human did see cards along the way


def test_turn_games_refuse_moves_out_of_turn(db):
    players = [make_player() for _ in range(3)]
    host, *guests = players
    match_id = host.create(
        "old-men-of-the-forest", ["me", *({"user": g.name} for g in guests)]
    ).json()["id"]
    for guest in guests:
        guest.post(f"/matches/{match_id}/join")
    seen = host.match(match_id)
    assert seen["phase"]["kind"] == "turn" and seen["phase"]["submitted"] == []
    (actor,) = seen["phase"]["to_act"]
    idle = next(p for i, p in enumerate(players) if i != actor)
    card = idle.match(match_id)["view"]["hand"][0]
    before = Match.objects.get(pk=match_id).version
    answer = idle.move(match_id, seen["step"], {"play": card})
    assert answer.status_code == 409 and answer.json()["code"] == "not_your_turn"
    assert Match.objects.get(pk=match_id).version == before


@pytest.mark.parametrize(("game", "count", "options"), [SETUPS[1], SETUPS[5], SETUPS[9]])
def test_finished_turn_games_verify(db, game, count, options):
    from games.services.audit import audit_transcript
    from games.verify import verify_transcript

    host = make_player()
    seats = [{"bot": "greedy"} for _ in range(count)]
    match_id = host.create(game, seats, options=options).json()["id"]
    assert _bots_until_human(match_id).status == Match.Status.FINISHED
    report = verify_transcript(audit_transcript(match_id=match_id))
    assert report.ok, report.problems


def test_xato_life_cards_are_never_echoed_to_their_owner(db):
    human, *others = [make_player() for _ in range(3)]
    match_id = human.create(
        "xato",
        ["me", *({"user": p.name} for p in others)],
        options={"max_calls": 6, "life_cards": 2},
    ).json()["id"]
    for other in others:
        other.post(f"/matches/{match_id}/join")
    players = [human, *others]
    for _ in range(60):  # the draft, one public pick at a time
        seen = human.match(match_id)
        if seen["phase"]["kind"] == "simultaneous":
            break
        actor = players[seen["phase"]["to_act"][0]]
        actor.move(match_id, seen["step"], actor.match(match_id)["legal_moves"][0])
    (template,) = seen["legal_moves"]
    assert template["life"]["choose"] == 2
    life = template["life"]["from"][:2]
    answer = human.move(match_id, seen["step"], {"life": life}, HTTP_IDEMPOTENCY_KEY="life-1")
    assert answer.status_code == 202
    assert not any(card in answer.content.decode() for card in life)
    assert human.match(match_id)["phase"]["your_move"] is None
    # a repeat is never compared: the same and a different choice answer alike
    for body in ({"life": life}, {"life": template["life"]["from"][2:4]}):
        again = human.move(match_id, seen["step"], body)
        assert again.status_code == 409 and again.json()["code"] == "already_submitted"
        keyed = human.move(match_id, seen["step"], body, HTTP_IDEMPOTENCY_KEY="life-1")
        assert keyed.status_code == 202 and keyed.json() == answer.json()
    for other in others:
        legal = other.match(match_id)["legal_moves"][0]["life"]["from"]
        assert other.move(match_id, seen["step"], {"life": legal[:2]}).status_code == 202
    view = human.match(match_id)["view"]
    assert view["life_count"] == [2, 2, 2]
    assert not set(life) & set(view["hand"])
    resolved = [e for e in human.events(match_id)["results"] if e["type"] == "step_resolved"]
    life_step = resolved[-1]["data"]
    assert life_step["kind"] == "life" and life_step["life_counts"] == [2, 2, 2]
    assert not any(card in json.dumps(life_step) for card in life)
