"""Conditional sealed moves: the API, the job that plays them, and a correspondence match
played to the end with one seat's bids entirely conditional."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import dispatch
from games.models import ConditionalMoves, Match, Move
from games.services.conditional import (
    conditional_moves_drop,
    conditional_moves_play,
    stalled_conditional_sweep,
)
from games.services.conditional_rules import rule_pick
from games.services.unit_of_work import match_change
from games.verify import verify_transcript
from tests.leaks import alternatives
from tests.players import Player, make_player, start_match

PATH = "/matches/{}/conditional-moves"
#: Conditional moves are offered in correspondence matches (a day or more per step).
DAILY = {"per_step_seconds": 86400}


class Worker:
    """The task runner as the tests see it: jobs are queued, and run when the test says so,
    each in its own transaction as a worker would (with its on-commit work done)."""

    def __init__(self, capture: Any) -> None:
        self.capture = capture
        self.queue: list[tuple[str, tuple[Any, ...]]] = []

    def runner(self, name: str, args: tuple[Any, ...], eta: Any) -> None:
        self.queue.append((name, args))

    def jobs(self) -> list[tuple[Any, ...]]:
        return [args for name, args in self.queue if name == "conditional_moves"]

    def run(self) -> int:
        """Run every queued conditional-moves job, and those they queue; returns the moves."""
        played = 0
        while pending := self.jobs():
            self.queue = [(name, args) for name, args in self.queue if name != "conditional_moves"]
            for args in pending:
                with self.capture(execute=True):
                    played += dispatch.job("conditional_moves")(*args)
        return played


@pytest.fixture
def worker(settings: Any, django_capture_on_commit_callbacks: Any) -> Iterator[Worker]:
    runner = Worker(django_capture_on_commit_callbacks)
    dispatch.runner_register("tests", runner.runner)
    settings.FACEDOWN_TASK_RUNNER = "tests"
    yield runner


def put(player: Player, match_id: str, rules: Any) -> Any:
    return player.client.put(f"/api/v1{PATH.format(match_id)}", {"rules": rules}, format="json")


def test_rule_pick_takes_the_first_rule_whose_pot_and_card_fit() -> None:
    rules = [{"pot": [5], "card": 9}, {"pot": [3, 4], "card": 2}, {"pot": None, "card": 1}]
    assert rule_pick(rules, pot=[4], hand=[1, 2, 3]) == 1
    assert rule_pick(rules, pot=[2, 2], hand=[1, 3]) == 2  # the pot's value is its sum
    assert rule_pick(rules, pot=[5], hand=[9]) == 0
    assert rule_pick(rules, pot=[5], hand=[7]) is None


def test_the_owner_reads_replaces_and_clears_their_rules(
    alice: Player, bob: Player, carol: Player, worker: Worker
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5}, time_control=DAILY)
    assert alice.match(match_id)["conditional_moves"] is True
    rules = [{"pot": [5, 3], "card": 4}, {"pot": None, "card": 1}]
    answer = put(alice, match_id, rules)
    assert answer.status_code == 200, answer.content
    stored = [{"pot": [3, 5], "card": 4}, {"pot": None, "card": 1}]
    assert answer.json() == {"seat": 0, "rules": stored, "played": []}
    assert alice.get(PATH.format(match_id)).json()["rules"] == stored
    assert bob.get(PATH.format(match_id)).json() == {"seat": 1, "rules": [], "played": []}
    refused = carol.get(PATH.format(match_id))
    assert (refused.status_code, refused.json()["code"]) == (403, "not_seated")
    assert put(carol, match_id, rules).json()["code"] == "not_seated"
    cleared = alice.client.delete(f"/api/v1{PATH.format(match_id)}")
    assert cleared.json()["rules"] == []
    assert not ConditionalMoves.objects.filter(match_id=match_id).exists()
    unknown = alice.get(PATH.format("00000000-0000-0000-0000-000000000000"))
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")


@pytest.mark.parametrize(
    "rules, field",
    [
        ([{"pot": None, "card": 6}], "rules.0.card"),  # 5 cards in this match
        ([{"pot": [16], "card": 1}], "rules.0.pot"),  # 1 + … + 5 = 15 at most
        ([{"pot": [0], "card": 1}], "rules.0.pot"),
        ([{"card": 1, "when": "always"}], "rules.0"),
        ([{"pot": None, "card": 1}] * 65, "rules"),
    ],
)
def test_bad_rules_are_refused_and_change_nothing(
    rules: Any, field: str, alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5}, time_control=DAILY)
    put(alice, match_id, [{"pot": None, "card": 2}])
    answer = put(alice, match_id, rules)
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("application/problem+json")
    assert field in str(answer.json()["errors"])
    assert alice.get(PATH.format(match_id)).json()["rules"] == [{"pot": None, "card": 2}]


def test_hols_der_geier_takes_vulture_pots(alice: Player, bob: Player, carol: Player) -> None:
    match_id = start_match("hols-der-geier", [alice, bob, carol], time_control=DAILY)
    answer = put(alice, match_id, [{"pot": [-5, 10], "card": 15}])
    assert answer.status_code == 200, answer.content
    assert put(alice, match_id, [{"pot": [56], "card": 1}]).status_code == 400


def test_commit_reveal_other_games_and_fast_matches_are_refused_with_a_stable_code(
    alice: Player, bob: Player
) -> None:
    sealed = start_match("gops", [alice, bob], protocol="commit-reveal", time_control=DAILY)
    memory = start_match("memory", [alice, bob], time_control=DAILY)
    fast = start_match("gops", [alice, bob], time_control={"per_step_seconds": 3600})
    untimed = start_match("gops", [alice, bob])
    for match_id in (sealed, memory, fast, untimed):
        assert alice.match(match_id)["conditional_moves"] is False
        for answer in (alice.get(PATH.format(match_id)), put(alice, match_id, [])):
            assert (answer.status_code, answer.json()["code"]) == (
                409,
                "conditional_moves_unavailable",
            )


def test_a_rule_plays_when_its_step_opens_and_is_used_up(
    alice: Player, bob: Player, worker: Worker
) -> None:
    ascending = {"num_cards": 5, "prize_order": "ascending"}
    match_id = start_match("gops", [alice, bob], options=ascending, time_control=DAILY)
    with worker.capture(execute=True):
        put(alice, match_id, [{"pot": [2], "card": 5}, {"pot": [1], "card": 3}])
    # set while step 1 is open: the replacement enqueued the job for step 1
    assert worker.jobs() == [(match_id, 1)]
    assert worker.run() == 1
    move = Move.objects.get(match_id=match_id, step=1, seat=0)
    assert (move.payload, move.source) == ({"card": 3}, "conditional")
    assert alice.match(match_id)["phase"]["your_move"] == {"card": 3}
    mine = alice.get(PATH.format(match_id)).json()
    assert mine["rules"] == [{"pot": [2], "card": 5}]
    assert mine["played"] == [{"step": 1, "card": 3, "receipt": move.receipt}]
    # a second run of the same job changes nothing
    assert conditional_moves_play(match_id=match_id, step=1) == 0
    # bob's move resolves step 1 and opens step 2: its job is enqueued whatever the rules
    with worker.capture(execute=True):
        assert bob.move(match_id, 1, {"card": 1}).status_code == 202
    assert worker.jobs() == [(match_id, 2)]
    assert worker.run() == 1
    assert Move.objects.get(match_id=match_id, step=2, seat=0).payload == {"card": 5}
    assert not ConditionalMoves.objects.filter(match_id=match_id).exists()  # all used up
    # the hand-played move of a seat whose rule already played is refused as a repeat would be
    assert alice.move(match_id, 2, {"card": 1}).json()["code"] == "already_submitted"


def test_rules_are_deleted_on_forfeit_on_a_change_of_hands_and_at_the_end(
    alice: Player, bob: Player, carol: Player, worker: Worker
) -> None:
    match_id = start_match(
        "gops", [alice, bob, carol], options={"num_cards": 4}, time_control=DAILY
    )
    for player in (alice, bob, carol):
        put(player, match_id, [{"pot": [10], "card": 4}])
    with worker.capture(execute=True):
        assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    assert set(ConditionalMoves.objects.values_list("seat", flat=True)) == {1, 2}
    with match_change(match_id) as tx:  # what a substitute's taking over the seat calls
        conditional_moves_drop(tx, 1)
    assert set(ConditionalMoves.objects.values_list("seat", flat=True)) == {2}
    with worker.capture(execute=True):
        assert bob.post(f"/matches/{match_id}/resign").status_code == 200
    assert Match.objects.get(pk=match_id).status == "finished"
    assert not ConditionalMoves.objects.exists()
    late = put(carol, match_id, [{"pot": None, "card": 1}])
    assert (late.status_code, late.json()["code"]) == (409, "match_not_active")


def _alice_then_bob_completes(match_id: str, alice: Player, bob: Player) -> Any:
    assert alice.move(match_id, 1, {"card": 2}).status_code == 202
    with CaptureQueriesContext(connection) as queries:
        answer = bob.move(match_id, 1, {"card": 1})
    assert answer.status_code == 202
    # savepoint names count up from one variant to the next, and the change's write (logged
    # with its values inside another atomic block) carries times and signatures: the shapes
    named = [re.sub(r'"s\d+_x\d+"', "savepoint", q["sql"]) for q in queries.captured_queries]
    return [re.sub(r"'(?:[^']|'')*'|\b\d+\b", "?", sql) for sql in named]


def test_the_move_that_opens_a_step_costs_the_same_with_rules_and_without(
    alice: Player, bob: Player, worker: Worker
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5}, time_control=DAILY)
    with_rules, without = alternatives(
        lambda: (
            put(alice, match_id, [{"pot": None, "card": c} for c in (5, 4, 3)]),
            _alice_then_bob_completes(match_id, alice, bob),
        )[1],
        lambda: _alice_then_bob_completes(match_id, alice, bob),
    )
    assert with_rules == without
    assert not any("conditional" in sql for sql in with_rules)


@pytest.mark.slow
def test_a_correspondence_match_played_with_one_seat_entirely_conditional(
    alice: Player, bob: Player, worker: Worker
) -> None:
    match_id = start_match("gops", [alice, bob], time_control=DAILY)
    # the prize itself when it is in hand, else the lowest card (the pot may carry over)
    rules = [{"pot": [value], "card": value} for value in range(1, 14)]
    rules += [{"pot": None, "card": card} for card in range(1, 14)]
    with worker.capture(execute=True):
        assert put(alice, match_id, rules).status_code == 200
    receipts: dict[tuple[int, int], Any] = {}
    for _ in range(20):
        worker.run()
        seen = bob.match(match_id)
        if seen["status"] != "active":
            break
        assert seen["phase"]["submitted"] == [0]  # alice's rule is in before bob moves
        with worker.capture(execute=True):
            answer = bob.move(match_id, seen["step"], seen["legal_moves"][-1])
        assert answer.status_code == 202, answer.content
        receipts[(seen["step"], 1)] = answer.json()["receipt"]
    assert Match.objects.get(pk=match_id).status == "finished"
    sources = dict(Move.objects.filter(match_id=match_id, seat=0).values_list("step", "source"))
    assert set(sources.values()) == {"conditional", "forced"}  # the 13th step is forced
    played = alice.get(PATH.format(match_id)).json()["played"]
    assert len(played) == 12
    receipts.update({(entry["step"], 0): entry["receipt"] for entry in played})
    audit = alice.get(f"/matches/{match_id}/audit").json()
    report = verify_transcript(audit)
    assert report.ok, report.problems
    for step in audit["steps"][:12]:
        for seat in (0, 1):
            assert step["receipts"][seat] == receipts[(step["step"], seat)]
        assert step["sources"][0] == "conditional"


def test_a_bot_account_holds_rules_like_a_player(alice: Player) -> None:
    robot = make_player(bot=True)
    match_id = start_match("gops", [alice, robot], options={"num_cards": 3}, time_control=DAILY)
    answer = put(robot, match_id, [{"pot": None, "card": 3}])
    assert answer.status_code == 200, answer.content
    assert robot.get(PATH.format(match_id)).json()["rules"] == [{"pot": None, "card": 3}]


def test_a_match_without_conditional_moves_enqueues_no_job(
    alice: Player, bob: Player, worker: Worker
) -> None:
    fast = start_match("gops", [alice, bob], time_control={"per_step_seconds": 3600})
    with worker.capture(execute=True):
        assert alice.move(fast, 1, {"card": 1}).status_code == 202
        assert bob.move(fast, 1, {"card": 2}).status_code == 202
    assert worker.jobs() == []


def test_the_sweep_makes_up_for_a_lost_job(alice: Player, bob: Player, worker: Worker) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5}, time_control=DAILY)
    put(alice, match_id, [{"pot": None, "card": 5}])  # its job is lost: never run on commit
    opened = Match.objects.get(pk=match_id).step_opened_at
    assert opened is not None
    assert stalled_conditional_sweep(now=opened) == 0  # just opened: its job is still due
    assert stalled_conditional_sweep(now=opened + timedelta(hours=2)) == 0  # past the window
    assert stalled_conditional_sweep(now=opened + timedelta(minutes=5)) == 1
    assert stalled_conditional_sweep(now=opened + timedelta(minutes=6)) == 0
    assert Move.objects.get(match_id=match_id, step=1, seat=0).source == "conditional"


def test_a_substitute_reads_only_the_plays_of_its_own_tenure(
    alice: Player, bob: Player, carol: Player, worker: Worker
) -> None:
    """Alice's rule plays step 1, then she resigns; Dave takes her seat over. What her rules
    played (and when: the receipt's time) was hers: Dave's read lists his own plays only."""
    dave = make_player()
    options = {"num_cards": 4, "prize_order": "ascending"}
    match_id = start_match("gops", [alice, bob, carol], options=options, time_control=DAILY)
    with worker.capture(execute=True):
        put(alice, match_id, [{"pot": None, "card": 1}])
    assert worker.run() == 1
    assert [p["step"] for p in alice.get(PATH.format(match_id)).json()["played"]] == [1]
    with worker.capture(execute=True):
        assert alice.post(f"/matches/{match_id}/resign").status_code == 200
        offer = bob.post(f"/matches/{match_id}/substitutes", {"seat": 0, "invitee": dave.name})
        assert offer.status_code == 201, offer.content
        taken = dave.post(f"/matches/{match_id}/substitutes/{offer.json()['id']}/accept")
        assert taken.status_code == 200, taken.content
    assert dave.get(PATH.format(match_id)).json()["played"] == []
    with worker.capture(execute=True):
        put(dave, match_id, [{"pot": None, "card": 2}])
        for player in (bob, carol):  # step 1 resolves; step 2 is Dave's
            assert player.move(match_id, 1, {"card": 1}).status_code == 202
    assert worker.run() == 1
    mine = dave.get(PATH.format(match_id)).json()
    assert [(p["step"], p["card"]) for p in mine["played"]] == [(2, 2)]
