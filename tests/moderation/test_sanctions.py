"""Sanctions: a suspension refuses new play with 403 ``suspended`` and hands running seats to
the stand-in bot, unrated for the suspended (and, in two seats, for both); a lift restores
play; an appeal lands in the queue once; the permissions hold in the services."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.sanctions import FOREVER, chat_muted, play_suspended
from core.errors import PermissionDenied, ValidationFailed
from games import dispatch
from games.embedded import worker
from games.models import Match, MatchEvent, Rating, Seat
from games.services.bot_seats import bot_moves_play
from live.bus import bus
from moderation.models import ModerationLogEntry, Report, Sanction
from moderation.sanctions import sanction_impose, sanction_lift
from tests.moderation.conftest import console_of
from tests.players import Player, start_match


def _play_out(match_id: str, player: Player) -> None:
    """``player`` plays its seat, the stand-in the other, to the end."""
    for _ in range(50):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            return
        bot_moves_play(match_id=match_id, step=match.step)
        seen = player.match(match_id)
        if seen["status"] == "active" and seen["legal_moves"]:
            assert player.move(match_id, seen["step"], seen["legal_moves"][0]).status_code == 202
    raise AssertionError("match did not end")


def test_a_suspended_players_match_goes_on_with_the_stand_in_unrated(
    alice: Player, bob: Player, carol: Player, moderator: User, django_capture_on_commit_callbacks
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    # alice has moved: the stand-in rule alone would still rate her (she played).
    legal = alice.match(match_id)["legal_moves"]
    assert alice.move(match_id, 1, legal[0]).status_code == 202
    seek = alice.post("/seeks", {"game": "gops", "players": 2, "options": {"num_cards": 3}})
    assert seek.status_code == 201

    sanction_impose(
        staff=moderator,
        user=alice.user,
        kind="suspend",
        reason="Abandons matches",
        ends_at=timezone.now() + timedelta(days=7),
    )
    seat = Seat.objects.get(match_id=match_id, index=0)
    assert seat.controlled_by == Seat.Controller.BOT and seat.unrated and seat.user == alice.user
    replaced = MatchEvent.objects.filter(match_id=match_id, type="seat_replaced").get()
    assert replaced.data["operator"] == "mod" and replaced.data["reason"] == "Abandons matches"
    assert alice.get(f"/seeks/{seek.json()['id']}").json()["status"] == "cancelled"

    for refused in (
        alice.post("/seeks", {"game": "gops", "players": 2}),
        alice.post("/challenges", {"game": "gops", "to": "carol"}),
        alice.create("gops", ["me", {"user": "carol"}]),
    ):
        assert refused.status_code == 403 and refused.json()["code"] == "suspended", refused.json()
    invite = carol.create("gops", ["me", {"user": "alice"}], options={"num_cards": 3})
    joined = alice.post(f"/matches/{invite.json()['id']}/join", {})
    assert joined.status_code == 403 and joined.json()["code"] == "suspended"

    _play_out(match_id, bob)
    finished = Match.objects.get(pk=match_id)
    assert finished.status == Match.Status.FINISHED
    # Unrated for the suspended, and so, in two seats, for both.
    assert not Rating.objects.filter(user__in=[alice.user, bob.user], rated_matches__gt=0).exists()
    event = MatchEvent.objects.filter(match_id=match_id, type="match_finished").get()
    assert not event.data.get("ratings")

    sanction = Sanction.objects.get()
    sanction_lift(staff=moderator, sanction_id=sanction.pk, reason="Talked it over")
    alice.user.refresh_from_db()
    assert not play_suspended(alice.user) and alice.user.play_suspended_until is None
    assert alice.post("/seeks", {"game": "gops", "players": 2}).status_code == 201
    actions = list(ModerationLogEntry.objects.order_by("at", "id").values_list("action", flat=True))
    assert actions == ["sanction_suspend", "sanction_suspend_lift"]


def test_ends_kept_on_the_account_row(alice: Player, moderator: User) -> None:
    now = timezone.now()
    sanction_impose(staff=moderator, user=alice.user, kind="chat_mute", reason="a", now=now)
    short = sanction_impose(
        staff=moderator,
        user=alice.user,
        kind="chat_mute",
        reason="b",
        ends_at=now + timedelta(hours=1),
        now=now,
    )
    alice.user.refresh_from_db()
    assert alice.user.chat_muted_until == FOREVER and chat_muted(alice.user)
    forever = Sanction.objects.exclude(pk=short.pk).get()
    sanction_lift(staff=moderator, sanction_id=forever.pk, reason="enough")
    alice.user.refresh_from_db()
    assert alice.user.chat_muted_until == short.ends_at
    assert not chat_muted(alice.user, now=now + timedelta(hours=2))
    warned = sanction_impose(staff=moderator, user=alice.user, kind="warn", reason="c")
    with pytest.raises(ValidationFailed):  # a warning has nothing to lift
        sanction_lift(staff=moderator, sanction_id=warned.pk, reason="x")


def test_refusals_and_permissions(alice: Player, bob: Player, moderator: User) -> None:
    with pytest.raises(PermissionDenied):
        sanction_impose(staff=bob.user, user=alice.user, kind="warn", reason="no")
    staff_only = User.objects.create_user("helper", password="correct-horse-battery", is_staff=True)
    with pytest.raises(PermissionDenied):  # staff without the permission
        sanction_impose(staff=staff_only, user=alice.user, kind="warn", reason="no")
    with pytest.raises(ValidationFailed):
        sanction_impose(staff=moderator, user=alice.user, kind="warn", reason="  ")
    with pytest.raises(ValidationFailed):
        sanction_impose(
            staff=moderator,
            user=alice.user,
            kind="chat_mute",
            reason="past",
            ends_at=timezone.now() - timedelta(seconds=1),
        )
    assert not Sanction.objects.exists() and not ModerationLogEntry.objects.exists()


def test_a_closing_closes_the_account_as_its_own_deletion(
    alice: Player, bob: Player, moderator: User
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    sanction_impose(staff=moderator, user=alice.user, kind="close", reason="Cheating ring")
    alice.user.refresh_from_db()
    assert not alice.user.is_active and alice.user.username.startswith("deleted")
    assert Seat.objects.get(match_id=match_id, index=0).forfeited
    assert alice.get("/sanctions").status_code == 401
    assert ModerationLogEntry.objects.get().action == "sanction_close"


def test_an_appeal_lands_in_the_queue_once(alice: Player, bob: Player, moderator: User) -> None:
    sanction = sanction_impose(staff=moderator, user=alice.user, kind="warn", reason="Rude")
    mine = alice.get("/sanctions").json()["results"]
    assert mine == [
        {
            "id": sanction.pk,
            "kind": "warn",
            "reason": "Rude",
            "starts_at": mine[0]["starts_at"],
            "ends_at": None,
            "lifted_at": None,
            "appealed": False,
        }
    ]
    other = bob.post(f"/sanctions/{sanction.pk}/appeal", {"text": "not mine"})
    assert other.status_code == 404 and other.json()["code"] == "not_found"
    first = alice.post(f"/sanctions/{sanction.pk}/appeal", {"text": "I was quoting him"})
    assert first.status_code == 201 and first.json()["appealed"] is True
    again = alice.post(f"/sanctions/{sanction.pk}/appeal", {"text": "please"})
    assert again.status_code == 409 and again.json()["code"] == "already_appealed"
    report = Report.objects.get()
    assert (report.kind, report.state, report.reported_user) == ("appeal", "open", alice.user)
    assert report.evidence["appeal"] == "I was quoting him"
    console = console_of(moderator)
    page = console.get(f"/admin/moderation/report/{report.pk}/change/").content.decode()
    assert "I was quoting him" in page
    assert f"/admin/moderation/sanction/{sanction.pk}/change/" in page


def test_the_end_of_sanctions_is_a_periodic_job_of_both_runners(settings: Any) -> None:
    assert "sanctions_running_out" in worker.periodic
    assert dispatch.job("sanctions_running_out") is not None
    beat = settings.CELERY_BEAT_SCHEDULE["sanctions-running-out"]
    assert beat["task"] == "moderation.tasks.sanctions_running_out_task"


def test_a_move_never_reads_a_sanction_and_a_chat_message_one_field(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    legal = alice.match(match_id)["legal_moves"]
    with CaptureQueriesContext(connection) as moving:
        assert alice.move(match_id, 1, legal[0]).status_code == 202
    with CaptureQueriesContext(connection) as talking:
        assert alice.post(f"/matches/{match_id}/chat", {"text": "hi"}).status_code == 201
    columns = ("play_suspended_until", "chat_muted_until")
    assert not [q["sql"] for q in moving.captured_queries if any(c in q["sql"] for c in columns)]
    reads = [q["sql"] for q in talking.captured_queries if "chat_muted_until" in q["sql"]]
    assert len(reads) == 1 and "play_suspended_until" not in reads[0]


def test_the_player_hears_of_a_sanction_and_its_lift_on_their_stream(
    alice: Player, moderator: User, django_capture_on_commit_callbacks: Any
) -> None:
    bounds = bus().account_bounds(alice.user.pk)
    after = bounds[1] if bounds else None
    with django_capture_on_commit_callbacks(execute=True):
        sanction = sanction_impose(
            staff=moderator, user=alice.user, kind="chat_mute", reason="Insults"
        )
    with django_capture_on_commit_callbacks(execute=True):
        sanction_lift(staff=moderator, sanction_id=sanction.pk, reason="Apologised")
    items = [json.loads(text) for _, text in bus().account_items(alice.user.pk, after)]
    assert [(i["type"], i["data"]["id"], i["data"]["kind"]) for i in items] == [
        ("sanction", sanction.pk, "chat_mute"),
        ("sanction_lifted", sanction.pk, "chat_mute"),
    ]
    assert items[0]["data"]["reason"] == "Insults" and "mod" not in json.dumps(items)
