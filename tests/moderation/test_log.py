"""The moderation log: ``staff_action_record`` writes one row; the console shows it read-only,
searchable, to staff only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client

from accounts.models import User
from moderation.log import staff_action_record
from moderation.models import ModerationLogEntry

LOG = "/admin/moderation/moderationlogentry/"
WHEN = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


@pytest.fixture
def staff(db: None) -> User:
    return User.objects.create_superuser("warden", "w@example.com", "correct-horse-battery")


def test_record_keeps_who_when_why_and_what(staff: User) -> None:
    troll = User.objects.create_user("troll", password="correct-horse-battery")
    entry = staff_action_record(
        actor=staff,
        action="sanction_chat_mute",
        reason="Insults in chat",
        subject_user=troll,
        subject_type="report",
        subject_id="17",
        changes={"ends_at": "2026-05-05T12:00:00Z"},
        now=WHEN,
    )
    row = ModerationLogEntry.objects.get(pk=entry.pk)
    assert (row.actor, row.subject_user, row.action) == (staff, troll, "sanction_chat_mute")
    assert (row.subject_type, row.subject_id, row.at) == ("report", "17", WHEN)
    assert row.changes == {"ends_at": "2026-05-05T12:00:00Z"}
    system = staff_action_record(actor=None, action="sanction_expired", reason="Its end came")
    assert system.actor is None and system.changes == {} and system.at is not None


def test_console_searches_and_never_edits(staff: User) -> None:
    troll = User.objects.create_user("troll", password="correct-horse-battery")
    staff_action_record(actor=staff, action="warn", reason="Rude words", subject_user=troll)
    staff_action_record(actor=staff, action="match_abort", reason="Stuck", subject_type="match")
    console = Client()
    console.force_login(staff)
    page = console.get(LOG + "?q=troll")
    assert page.status_code == 200
    assert "Rude words" in page.content.decode() and "Stuck" not in page.content.decode()
    entry = ModerationLogEntry.objects.get(action="warn")
    assert console.get(f"{LOG}{entry.pk}/change/").status_code == 200
    assert console.post(f"{LOG}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert console.get(LOG + "add/").status_code == 403
    assert ModerationLogEntry.objects.count() == 2


def test_players_never_read_it(staff: User) -> None:
    staff_action_record(actor=staff, action="warn", reason="Rude words")
    player = User.objects.create_user("someone", password="correct-horse-battery")
    client = Client()
    client.force_login(player)
    assert client.get(LOG).status_code == 302  # to the console's login page
