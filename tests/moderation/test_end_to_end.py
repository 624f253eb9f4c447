"""#48 end to end: a player reports a chat message; a moderator mutes its author for a day
from the queue; the author's next message is refused with the sanction's code; the log shows
it; the mute ends on a controlled clock (the services take ``now``)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from moderation.models import ModerationLogEntry, Report, Sanction
from moderation.sanctions import sanctions_running_out
from social.chat import chat_post
from tests.moderation.conftest import console_of
from tests.players import Player, start_match

QUEUE = "/admin/moderation/report/"


def test_report_mute_refuse_log_and_the_end(alice: Player, bob: Player, moderator: User) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    assert alice.post(f"/matches/{match_id}/chat", {"text": "good luck"}).status_code == 201
    assert bob.post(f"/matches/{match_id}/chat", {"text": "you are an idiot"}).status_code == 201

    filed = alice.post(
        "/reports",
        {"kind": "chat_message", "reason": "abuse", "match": match_id, "seq": 2},
    )
    assert filed.status_code == 201, filed.content
    report = Report.objects.get()
    assert report.reported_user == bob.user and report.state == "open"
    assert [line["text"] for line in report.evidence["context"]] == [
        "good luck",
        "you are an idiot",
    ]

    console = console_of(moderator)
    queue = console.get(QUEUE + "?state__exact=open")
    assert queue.status_code == 200 and f"{QUEUE}{report.pk}/change/" in queue.content.decode()
    page = console.get(f"{QUEUE}{report.pk}/change/").content.decode()
    assert "you are an idiot" in page and f"{report.pk}/operate/sanction/" in page
    before = timezone.now()
    muted = console.post(
        f"{QUEUE}{report.pk}/operate/sanction/",
        {"username": "bob", "kind": "chat_mute", "duration": "24", "reason": "Insults"},
    )
    assert muted.status_code == 302, muted.content.decode()[:2000]
    sanction = Sanction.objects.get()
    assert sanction.kind == "chat_mute" and sanction.report == report
    assert sanction.ends_at is not None
    assert timedelta(hours=23) < sanction.ends_at - before < timedelta(hours=25)
    report.refresh_from_db()
    assert report.state == "handled" and report.resolution == "Insults"

    refused = bob.post(f"/matches/{match_id}/chat", {"text": "sorry?"})
    assert refused.status_code == 403 and refused.json()["code"] == "chat_muted"
    # Only the chat: bob still plays.
    legal = bob.match(match_id)["legal_moves"]
    assert bob.move(match_id, 1, legal[0]).status_code == 202

    log = console.get("/admin/moderation/moderationlogentry/?q=bob").content.decode()
    assert "sanction_chat_mute" in log and "Insults" in log and "report_handled" in log
    entry = ModerationLogEntry.objects.get(action="sanction_chat_mute")
    assert (entry.actor, entry.subject_user) == (moderator, bob.user)
    assert (entry.subject_type, entry.subject_id) == ("report", str(report.pk))
    # The reported player never learns who reported: nothing of alice in bob's sanctions.
    mine = bob.get("/sanctions").json()["results"]
    assert [s["kind"] for s in mine] == ["chat_mute"] and "alice" not in str(mine)

    # A day later (the controlled clock), the mute is over.
    later = sanction.ends_at + timedelta(seconds=1)
    bob.user.refresh_from_db()
    message = chat_post(match_id=uuid.UUID(match_id), user=bob.user, text="gg", now=later)
    assert message["text"] == "gg"
    assert sanctions_running_out(now=later) == 1
    ended = ModerationLogEntry.objects.get(action="sanction_chat_mute_ended")
    assert ended.actor is None and ended.subject_user == bob.user
    bob.user.refresh_from_db()
    assert bob.user.chat_muted_until is None
