"""Operator services: every action writes an event with operator and reason, bumps the version,
and refuses what it must (a finished match, a forfeit to undo, a seat created as a bot)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from core.errors import (
    MatchNotActive,
    NotFound,
    PermissionDenied,
    StaleStep,
    ValidationFailed,
)
from games.models import Match, MatchEvent, Move, Seat
from games.services import operators
from games.services.bot_seats import bot_moves_play
from tests.clocks import overdue
from tests.players import Player, play_to_end, start_match

TIMED = {"per_step_seconds": 60, "on_timeout": "auto_move"}


def _match(match_id: str) -> Match:
    return Match.objects.get(pk=match_id)


def _last(match_id: str) -> MatchEvent:
    return MatchEvent.objects.filter(match_id=match_id).order_by("-seq").first()  # type: ignore[return-value]


def _types(match_id: str) -> list[str]:
    return list(
        MatchEvent.objects.filter(match_id=match_id).order_by("seq").values_list("type", flat=True)
    )


# --- abort ---------------------------------------------------------------------------------------


def test_abort_an_active_match(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob])
    alice.move(match_id, 1, {"card": 5})
    version = _match(match_id).version
    operators.match_abort(match_id=match_id, operator=operator, reason="cheating report")
    match = _match(match_id)
    assert match.status == Match.Status.ABORTED
    assert match.version == version + 1
    assert match.deadline is None and match.acting_mask == 0
    assert match.result["reason"] == "aborted" and match.result["winners"] == []
    event = _last(match_id)
    assert event.type == "match_aborted"
    assert event.data == {"operator": "operator", "reason": "cheating report", "seat": None}
    seen = alice.match(match_id)
    assert seen["status"] == "aborted" and seen["fairness"]["seed"] == match.seed
    assert alice.move(match_id, 1, {"card": 6}).status_code == 409


def test_abort_an_open_match(alice: Player, bob: Player, operator: User):
    created = alice.create("gops", ["me", {"user": "bob"}])
    match_id = created.json()["id"]
    operators.match_abort(match_id=match_id, operator=operator, reason="stale invitation")
    assert _match(match_id).status == Match.Status.ABORTED
    assert _last(match_id).data["operator"] == "operator"


def test_abort_refuses_a_match_that_is_over(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    play_to_end(match_id, [alice, bob])
    with pytest.raises(MatchNotActive):
        operators.match_abort(match_id=match_id, operator=operator, reason="late")
    other = start_match("gops", [alice, bob])
    operators.match_abort(match_id=other, operator=operator, reason="once")
    events = _types(other)
    with pytest.raises(MatchNotActive):
        operators.match_abort(match_id=other, operator=operator, reason="twice")
    assert _types(other) == events


def test_a_reason_and_a_staff_operator_are_required(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob])
    version = _match(match_id).version
    with pytest.raises(ValidationFailed) as refused:
        operators.match_abort(match_id=match_id, operator=operator, reason="   ")
    assert "reason" in refused.value.extra["errors"]
    with pytest.raises(ValidationFailed):
        operators.match_abort(match_id=match_id, operator=operator, reason="x" * 501)
    with pytest.raises(PermissionDenied):
        operators.match_abort(match_id=match_id, operator=bob.user, reason="I am losing")
    with pytest.raises(NotFound):
        operators.match_abort(
            match_id="00000000-0000-0000-0000-000000000000", operator=operator, reason="gone"
        )
    assert _match(match_id).status == Match.Status.ACTIVE
    assert _match(match_id).version == version


# --- extend the deadline -------------------------------------------------------------------------


def test_extend_pushes_the_deadline_and_reschedules_its_watch(
    alice: Player, bob: Player, operator: User, enqueued: list, django_capture_on_commit_callbacks
):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    before = _match(match_id)
    with django_capture_on_commit_callbacks(execute=True):
        operators.deadline_extend(
            match_id=match_id, operator=operator, reason="server hiccup", seconds=120, step=1
        )
    match = _match(match_id)
    assert match.deadline == before.deadline + timedelta(seconds=120)
    assert match.version == before.version + 1
    event = _last(match_id)
    assert event.type == "deadline_extended" and event.step == 1
    assert event.data == {
        "operator": "operator",
        "reason": "server hiccup",
        "seconds": 120,
        "deadline": match.deadline.isoformat().replace("+00:00", "Z"),
    }
    assert ("step_expire", str(match.id), 1, match.deadline) in enqueued
    assert alice.match(match_id)["phase"]["deadline"] == event.data["deadline"]


def test_extending_an_overdue_step_counts_from_now(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    overdue(match_id, by=timedelta(hours=1))
    start = timezone.now()
    operators.deadline_extend(match_id=match_id, operator=operator, reason="late", seconds=60)
    assert _match(match_id).deadline >= start + timedelta(seconds=60)


def test_extend_refusals(alice: Player, bob: Player, operator: User):
    untimed = start_match("gops", [alice, bob])
    with pytest.raises(MatchNotActive):
        operators.deadline_extend(match_id=untimed, operator=operator, reason="r", seconds=60)
    timed = start_match("gops", [alice, bob], time_control=TIMED)
    for seconds in (0, -5, True, 10**9):
        with pytest.raises(ValidationFailed):
            operators.deadline_extend(
                match_id=timed, operator=operator, reason="r", seconds=seconds
            )
    with pytest.raises(StaleStep):
        operators.deadline_extend(match_id=timed, operator=operator, reason="r", seconds=60, step=2)
    operators.match_abort(match_id=timed, operator=operator, reason="done")
    with pytest.raises(MatchNotActive):
        operators.deadline_extend(match_id=timed, operator=operator, reason="r", seconds=60)


# --- force the timeout ---------------------------------------------------------------------------


def test_force_timeout_auto_moves_the_late_seat(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    alice.move(match_id, 1, {"card": 5})
    version = _match(match_id).version
    operators.step_force_timeout(match_id=match_id, operator=operator, reason="AFK", step=1)
    match = _match(match_id)
    assert match.step == 2 and match.version > version
    assert match.deadline is not None and match.deadline > timezone.now()
    assert Move.objects.get(match_id=match_id, step=1, seat=1).source == Move.Source.TIMEOUT
    forced = MatchEvent.objects.get(match_id=match_id, type="deadline_forced")
    assert forced.step == 1 and forced.data == {"operator": "operator", "reason": "AFK"}
    timeout = MatchEvent.objects.get(match_id=match_id, type="timeout")
    assert timeout.seq > forced.seq and timeout.data == {"seat": 1, "policy": "auto_move"}
    assert not match.seats.get(index=1).forfeited


def test_force_timeout_on_an_untimed_match_is_an_auto_move(
    alice: Player, bob: Player, operator: User
):
    match_id = start_match("hols-der-geier", [alice, bob])
    operators.step_force_timeout(match_id=match_id, operator=operator, reason="both away")
    match = _match(match_id)
    assert match.step == 2 and match.deadline is None
    timeouts = MatchEvent.objects.filter(match_id=match_id, type="timeout")
    assert [e.data for e in timeouts] == [
        {"seat": 0, "policy": "auto_move"},
        {"seat": 1, "policy": "auto_move"},
    ]


def test_force_timeout_follows_the_forfeit_policy(
    alice: Player, bob: Player, carol: Player, operator: User
):
    match_id = start_match(
        "gops",
        [alice, bob, carol],
        time_control={"per_step_seconds": 600, "on_timeout": "forfeit"},
    )
    alice.move(match_id, 1, {"card": 4})
    bob.move(match_id, 1, {"card": 1})
    operators.step_force_timeout(match_id=match_id, operator=operator, reason="gone")
    assert _types(match_id)[-5:] == [
        "deadline_forced",
        "timeout",
        "seat_forfeited",
        "step_resolved",
        "step_opened",
    ]
    assert Seat.objects.get(match_id=match_id, index=2).forfeited


def test_force_timeout_refusals(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob])
    with pytest.raises(StaleStep):
        operators.step_force_timeout(match_id=match_id, operator=operator, reason="r", step=3)
    operators.match_abort(match_id=match_id, operator=operator, reason="over")
    with pytest.raises(MatchNotActive):
        operators.step_force_timeout(match_id=match_id, operator=operator, reason="r")
    assert "deadline_forced" not in _types(match_id)


# --- hand a seat to a bot, and back --------------------------------------------------------------


def test_a_replaced_seat_is_played_by_the_bot(
    alice: Player,
    bob: Player,
    operator: User,
    enqueued: list,
    django_capture_on_commit_callbacks: Any,
):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    alice.move(match_id, 1, {"card": 5})
    version = _match(match_id).version
    with django_capture_on_commit_callbacks(execute=True):
        operators.seat_replace_with_bot(
            match_id=match_id, seat=1, operator=operator, reason="bob asked", bot="random"
        )
    seat = Seat.objects.get(match_id=match_id, index=1)
    assert seat.controlled_by == Seat.Controller.BOT and seat.bot == "random"
    assert seat.user_id == bob.user.pk  # kept, so the seat can be given back
    assert _match(match_id).version == version + 1
    event = _last(match_id)
    assert event.type == "seat_replaced" and event.step == 1
    assert event.data == {"seat": 1, "operator": "operator", "reason": "bob asked", "bot": "random"}
    assert ("bot_moves", match_id, 1, None) in enqueued
    # the player cannot move while the bot plays the seat
    refused = bob.move(match_id, 1, {"card": 1})
    assert refused.status_code == 409 and refused.json()["code"] == "not_your_turn"
    assert bot_moves_play(match_id=match_id, step=1) == 1
    assert Move.objects.get(match_id=match_id, step=1, seat=1).source == Move.Source.BOT
    assert _match(match_id).step == 2
    seen = alice.match(match_id)["seats"][1]
    assert seen["player"] == "bob" and seen["bot"] == "random" and seen["controlled_by"] == "bot"


def test_a_returned_seat_moves_for_its_player_again(alice: Player, bob: Player, operator: User):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    operators.seat_replace_with_bot(match_id=match_id, seat=1, operator=operator, reason="away")
    assert bot_moves_play(match_id=match_id, step=1) == 1
    version = _match(match_id).version
    operators.seat_return(match_id=match_id, seat=1, operator=operator, reason="bob is back")
    seat = Seat.objects.get(match_id=match_id, index=1)
    assert seat.controlled_by == Seat.Controller.PLAYER and seat.bot == ""
    assert _match(match_id).version == version + 1
    event = _last(match_id)
    assert event.type == "seat_returned"
    assert event.data == {"seat": 1, "operator": "operator", "reason": "bob is back"}
    # the step the bot already moved in stays; from the next one on, bob moves himself
    alice.move(match_id, 1, {"card": 5})
    assert _match(match_id).step == 2
    assert bot_moves_play(match_id=match_id, step=2) == 0
    legal = bob.match(match_id)["legal_moves"]
    assert bob.move(match_id, 2, legal[0]).status_code == 202


def test_replace_refusals(alice: Player, bob: Player, operator: User):
    created = alice.create("gops", ["me", {"bot": "greedy"}])
    with_bot = created.json()["id"]
    with pytest.raises(ValidationFailed):  # a seat created as a bot has no player
        operators.seat_replace_with_bot(match_id=with_bot, seat=1, operator=operator, reason="r")
    with pytest.raises(ValidationFailed):
        operators.seat_replace_with_bot(match_id=with_bot, seat=2, operator=operator, reason="r")
    with pytest.raises(ValidationFailed) as unknown:
        operators.seat_replace_with_bot(
            match_id=with_bot, seat=0, operator=operator, reason="r", bot="oracle"
        )
    assert "bot" in unknown.value.extra["errors"]
    match_id = start_match("gops", [alice, bob])
    operators.seat_replace_with_bot(match_id=match_id, seat=0, operator=operator, reason="r")
    with pytest.raises(ValidationFailed):  # already a bot's
        operators.seat_replace_with_bot(match_id=match_id, seat=0, operator=operator, reason="r")
    operators.match_abort(match_id=match_id, operator=operator, reason="over")
    with pytest.raises(MatchNotActive):
        operators.seat_replace_with_bot(match_id=match_id, seat=1, operator=operator, reason="r")


def test_replace_refuses_a_forfeited_seat(
    alice: Player, bob: Player, carol: Player, operator: User
):
    match_id = start_match("gops", [alice, bob, carol])
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    with pytest.raises(ValidationFailed):
        operators.seat_replace_with_bot(match_id=match_id, seat=2, operator=operator, reason="r")


def test_a_forfeit_is_never_undone(alice: Player, bob: Player, carol: Player, operator: User):
    match_id = start_match("gops", [alice, bob, carol])
    operators.seat_replace_with_bot(match_id=match_id, seat=2, operator=operator, reason="away")
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    events = _types(match_id)
    with pytest.raises(PermissionDenied):
        operators.seat_return(match_id=match_id, seat=2, operator=operator, reason="undo")
    seat = Seat.objects.get(match_id=match_id, index=2)
    assert seat.forfeited and seat.controlled_by == Seat.Controller.BOT
    assert _types(match_id) == events


def test_return_refusals(alice: Player, bob: Player, operator: User):
    created = alice.create("gops", ["me", {"bot": "greedy"}])
    with_bot = created.json()["id"]
    with pytest.raises(ValidationFailed):  # created as a bot: nobody to give it back to
        operators.seat_return(match_id=with_bot, seat=1, operator=operator, reason="r")
    with pytest.raises(ValidationFailed):  # the player holds it already
        operators.seat_return(match_id=with_bot, seat=0, operator=operator, reason="r")
    assert Seat.objects.get(match_id=with_bot, index=1).controlled_by == Seat.Controller.BOT


def test_a_seat_that_committed_is_not_handed_to_a_bot(operator, alice, bob):
    import hashlib
    import json as _json

    from core.errors import ValidationFailed
    from games.services.operators import seat_replace_with_bot
    from tests.players import start_match

    match_id = start_match("gops", [alice, bob], protocol="commit-reveal")
    move, salt = {"card": 3}, "ab" * 16
    text = f"facedown-move-v1|{match_id}|1|0|{_json.dumps(move, separators=(',', ':'))}|{salt}"
    alice.post(
        f"/matches/{match_id}/moves",
        {"step": 1, "commitment": hashlib.sha256(text.encode()).hexdigest()},
    )
    with pytest.raises(ValidationFailed):
        seat_replace_with_bot(match_id=match_id, seat=0, operator=operator, reason="away")
    # bob has not committed: his seat may go to a bot, which plays a plain move
    seat_replace_with_bot(match_id=match_id, seat=1, operator=operator, reason="away")
