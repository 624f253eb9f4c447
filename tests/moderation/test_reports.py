"""Reports from the API: each refusal's code, merging by object, the dismissed-reports rule,
the throttle, and evidence that outlives the account and holds no hidden information."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.services import account_delete
from moderation.models import Report, ReportFiling
from moderation.reports import DISMISSED_LIMIT, REPORTING_PAUSE, report_close, report_file
from social.models import ChatMessage
from tests.players import Player, start_match


def chat_report(player: Player, match_id: str, seq: int, **extra: Any) -> Any:
    body = {"kind": "chat_message", "reason": "abuse", "match": match_id, "seq": seq, **extra}
    return player.post("/reports", body)


def test_reports_about_one_object_merge_and_each_refusal_has_its_code(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    bob.post(f"/matches/{match_id}/chat", {"text": "rude words"})
    assert chat_report(alice, match_id, 1).status_code == 201
    assert chat_report(carol, match_id, 1, reason="spam").status_code == 201  # a spectator
    report = Report.objects.get()
    assert sorted(report.filings.values_list("reason", flat=True)) == ["abuse", "spam"]

    again = chat_report(alice, match_id, 1)
    assert again.status_code == 409 and again.json()["code"] == "already_reported"
    own = chat_report(bob, match_id, 1)
    assert own.status_code == 400 and own.json()["code"] == "validation_error"
    missing = chat_report(alice, match_id, 9)
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    for body in (
        {"kind": "player", "reason": "abuse", "player": "nobody"},
        {
            "kind": "match",
            "reason": "outside_help",
            "match": "00000000-0000-0000-0000-000000000000",
        },
    ):
        answer = alice.post("/reports", body)
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    for body in (
        {"kind": "chat_message", "reason": "boredom", "match": match_id, "seq": 1},
        {"kind": "player", "reason": "abuse", "player": "alice"},
        {"kind": "match", "reason": "abuse"},
        {"kind": "player", "reason": "abuse", "player": "bob", "extra": 1},
    ):
        answer = alice.post("/reports", body)
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", body
    assert ReportFiling.objects.count() == 2

    player = alice.post(
        "/reports", {"kind": "player", "reason": "abandonment", "player": "BOB", "match": match_id}
    )
    assert player.status_code == 201
    about_bob = Report.objects.get(kind="player")
    assert about_bob.reported_user == bob.user and about_bob.evidence["player"] == "bob"


def test_a_closed_report_starts_a_new_one(alice: Player, bob: Player, moderator: User) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    assert (
        alice.post("/reports", {"kind": "match", "reason": "other", "match": match_id}).status_code
        == 201
    )
    first = Report.objects.get()
    report_close(staff=moderator, report_id=first.pk, state="handled", resolution="Looked")
    assert (
        alice.post("/reports", {"kind": "match", "reason": "other", "match": match_id}).status_code
        == 201
    )
    assert Report.objects.count() == 2


def test_repeatedly_dismissed_reporters_pause(alice: Player, bob: Player, moderator: User) -> None:
    now = timezone.now()
    for _ in range(DISMISSED_LIMIT):
        match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
        filing = report_file(
            reporter=alice.user, kind="match", reason="other", match=match_id, now=now
        )
        report_close(
            staff=moderator,
            report_id=filing.report_id,
            state="dismissed",
            resolution="Nothing there",
            now=now,
        )
    refused = alice.post("/reports", {"kind": "player", "reason": "abuse", "player": "bob"})
    assert refused.status_code == 403 and refused.json()["code"] == "reporting_suspended"
    assert refused.json()["until"].startswith((now + REPORTING_PAUSE).date().isoformat())
    later = now + REPORTING_PAUSE + timedelta(seconds=1)
    assert report_file(reporter=alice.user, kind="player", reason="abuse", player="bob", now=later)
    # bob, never dismissed, reports freely
    assert (
        bob.post("/reports", {"kind": "player", "reason": "abuse", "player": "alice"}).status_code
        == 201
    )


def test_reports_are_throttled(alice: Player, bob: Player, rates: Any) -> None:
    rates(reports="2/hour")
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    for reason in ("abuse", "spam"):
        body = {"kind": "player", "reason": reason, "player": "bob"}
        alice.post("/reports", body)
    third = alice.post("/reports", {"kind": "match", "reason": "other", "match": match_id})
    assert third.status_code == 429 and third.json()["code"] == "throttled"


def test_evidence_outlives_the_account_and_shows_the_table_as_a_spectator(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    bob.post(f"/matches/{match_id}/chat", {"text": "you cheat"})
    legal = alice.match(match_id)["legal_moves"]
    assert alice.move(match_id, 1, legal[-1]).status_code == 202  # a sealed move
    assert (
        carol.post(
            "/reports", {"kind": "match", "reason": "outside_help", "match": match_id}
        ).status_code
        == 201
    )
    assert chat_report(alice, match_id, 1).status_code == 201
    spectator = carol.match(match_id)
    evidence = Report.objects.get(kind="match").evidence["match"]
    assert evidence["view"] == spectator["view"] and evidence["you"] is None
    assert evidence["legal_moves"] == [] and evidence["phase"]["your_move"] is None

    account_delete(user=bob.user, password="correct-horse-battery")
    ChatMessage.objects.filter(match_id=match_id).delete()  # as if purged
    kept = Report.objects.get(kind="chat_message").evidence
    assert kept["message"]["text"] == "you cheat" and kept["message"]["player"] == "bob"
