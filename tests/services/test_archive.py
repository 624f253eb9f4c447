"""Retention (games/services/archive.py): an archived match reads exactly as before.

Every read of a finished match — the match as each player and a spectator see it, its events
from several positions, the audit transcript and its verification, the operator console's
events table and spectator view — is captured, the match is archived (its moves and events
leave the hot tables), and every read is captured again and compared byte for byte.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.models import IdempotencyRecord, Match, MatchArchive, MatchEvent, Move
from games.services.archive import archive_due, match_archive
from games.services.players import player_export
from games.services.purge import data_purge
from games.verify import verify_transcript
from tests.players import Player, make_player, play_to_end, start_match


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _console(match_id: str) -> str:
    """The operator console's match page, less what changes per request (CSRF tokens)."""
    operator = User.objects.filter(username="archive-operator").first()
    if operator is None:
        operator = User.objects.create_superuser("archive-operator", "o@example.com", "x" * 12)
    client = Client()
    client.force_login(operator)
    page = client.get(f"/admin/games/match/{match_id}/change/")
    assert page.status_code == 200
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page.content.decode())


def _reads(match_id: str, readers: list[Player]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    last_seq = readers[0].events(match_id)["last_seq"]
    for reader in readers:
        detail = reader.get(f"/matches/{match_id}")
        seen[f"{reader.name} detail"] = (detail.status_code, detail["ETag"], detail.content)
        for after in sorted({0, 1, last_seq // 2, last_seq - 1, last_seq}):
            page = reader.get(f"/matches/{match_id}/events?after={after}")
            seen[f"{reader.name} events after {after}"] = (page.status_code, page.content)
    audit = readers[-1].get(f"/matches/{match_id}/audit")
    seen["audit"] = (audit.status_code, audit.content)
    report = verify_transcript(audit.json())
    seen["verified"] = (report.ok, report.problems)
    seen["console"] = _console(match_id)
    return seen


def _finished_matches(alice: Player, bob: Player, carol: Player) -> list[str]:
    gops = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(gops, [alice, bob])
    hols = start_match("hols-der-geier", [alice, bob, carol])
    play_to_end(hols, [alice, bob, carol], pick=lambda legal: legal[-1])
    memory = start_match("memory", [bob, carol])
    for _ in range(3):  # a few turns, whoever is to move
        for player in (bob, carol):
            seen = player.match(memory)
            if seen["legal_moves"]:
                assert player.move(memory, seen["step"], seen["legal_moves"][0]).status_code == 202
    assert carol.post(f"/matches/{memory}/resign").status_code == 200  # over by forfeit
    return [gops, hols, memory]


def test_an_archived_match_reads_exactly_as_before(alice, bob, carol, settings):
    spectator = make_player("spectator")
    matches = _finished_matches(alice, bob, carol)
    readers = [alice, bob, carol, spectator]
    before = {match_id: _reads(match_id, readers) for match_id in matches}
    assert all(seen["verified"] == (True, []) for seen in before.values())

    settings.FACEDOWN_ARCHIVE_AFTER_DAYS = 0
    assert data_purge(parts=("archive",)) == {"archive": 3}
    assert MatchArchive.objects.count() == 3
    assert not MatchEvent.objects.filter(match_id__in=matches).exists()
    assert not Move.objects.filter(match_id__in=matches).exists()

    after = {match_id: _reads(match_id, readers) for match_id in matches}
    for match_id in matches:
        for key, value in before[match_id].items():
            assert after[match_id][key] == value, f"{match_id}: {key} differs after archiving"


def test_only_matches_over_since_the_cutoff_are_archived_once(alice, bob, settings):
    live = start_match("gops", [alice, bob], options={"num_cards": 4})
    over = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(over, [alice, bob])
    settings.FACEDOWN_ARCHIVE_AFTER_DAYS = 30
    assert archive_due() == []
    assert match_archive(match_id=over) is False  # too recent
    later = timezone.now() + timedelta(days=31)
    assert [str(m) for m in archive_due(now=later)] == [over]
    assert match_archive(match_id=live, now=later) is False  # still active
    assert match_archive(match_id=over, now=later) is True
    assert match_archive(match_id=over, now=later) is False  # once
    assert archive_due(now=later) == []
    assert MatchEvent.objects.filter(match_id=live).exists()


def test_closing_an_account_renames_it_in_archived_events_too(alice, bob, settings):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(match_id, [alice, bob])
    settings.FACEDOWN_ARCHIVE_AFTER_DAYS = 0
    assert match_archive(match_id=match_id)
    exported = player_export(bob.user)["matches"][0]["moves"]
    assert [move["step"] for move in exported] == [1, 2, 3, 4]  # moves come from the archive
    old_name = bob.name
    closed = bob.client.delete(
        "/api/v1/accounts/me", {"password": "correct-horse-battery"}, format="json"
    )
    assert closed.status_code == 204, closed.content
    bob.user.refresh_from_db()
    events = alice.get(f"/matches/{match_id}/audit").json()["events"]
    named = json.dumps([event["data"] for event in events])
    assert f'"{old_name}"' not in named and f'"{bob.user.username}"' in named
    assert verify_transcript(alice.get(f"/matches/{match_id}/audit").json()).ok


def test_the_purge_deletes_expired_idempotency_records_and_sessions(alice, bob, settings):
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    old, fresh = timezone.now() - timedelta(days=2), timezone.now()
    for key, when in (("old", old), ("fresh", fresh)):
        IdempotencyRecord.objects.create(
            user=alice.user, method="POST", path="/x", key=key, request_hash="h", created_at=when
        )
    expired, alive = SessionStore(), SessionStore()
    expired.set_expiry(-10)
    expired.save()
    alive.save()
    done = data_purge(parts=("idempotency", "sessions"))
    assert done == {"idempotency": 1, "sessions": -1}
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    assert list(Session.objects.values_list("session_key", flat=True)) == [alive.session_key]


def test_the_purge_command_and_the_task_run_the_same_service(alice, bob, settings):
    from io import StringIO

    from django.core.management import call_command

    from games import dispatch

    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    play_to_end(match_id, [alice, bob])
    settings.FACEDOWN_ARCHIVE_AFTER_DAYS = 0
    out = StringIO()
    call_command("data_purge", "--only", "idempotency", stdout=out)
    assert out.getvalue().strip() == '{"idempotency": 0}'
    done = dispatch.job("data_purge")()
    assert done == {"idempotency": 0, "sessions": -1, "archive": 1, "invitations": 0}
    assert Match.objects.get(pk=match_id).archive is not None
