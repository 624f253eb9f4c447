"""The ladder through its API and services, in process: entering (what is declared is checked
by each engine's schema), the caps and their codes, a wave seating each entrant at most its cap
(two waves at once included), results rating the ladder's own pool, the pause and its resume,
refusal settings, and the public page with its verifier counts."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from accounts.services import account_close
from console.figures import ladder_figures
from games.models import Match, Rating
from games.services.deadlines import overdue_sweep
from ladder.models import LadderEntry, LadderMatch
from ladder.services.pairing import ladder_pair
from ladder.services.results import match_finished
from ladder.services.verification import ladder_verify
from ladder.services.wilson import wilson
from tests.clocks import overdue
from tests.players import Player, make_player, play_to_end

GOPS3 = [{"num_cards": 3}]


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _enter(player: Player, **body: Any) -> Any:
    return player.post("/ladders/gops/entry", {"options": GOPS3, **body})


def _running(player: Player) -> list[str]:
    entry = LadderEntry.objects.get(user=player.user, game="gops")
    rows = LadderMatch.objects.filter(finished_at__isnull=True)
    return [str(r.pk) for r in rows if entry.pk in r.entries]


def _play_all(players: list[Player]) -> int:
    """Play every running ladder match to its end and record it; returns how many."""
    done = 0
    for row in LadderMatch.objects.filter(finished_at__isnull=True):
        by_entry = {p: LadderEntry.objects.get(pk=p).user_id for p in row.entries}
        seated = [next(x for x in players if x.user.pk == by_entry[p]) for p in row.entries]
        play_to_end(str(row.pk), seated, pick=_by_seat(seated))
        assert match_finished(row.pk)
        done += 1
    return done


def _by_seat(seated: list[Player]) -> Any:
    """A move picker: the first seat's highest legal card, every other seat's lowest."""
    turn = iter(range(10_000))

    def pick(legal: list[dict[str, Any]]) -> dict[str, Any]:
        chooser = max if next(turn) % len(seated) == 0 else min
        return chooser(legal, key=lambda move: move["card"])

    return pick


@pytest.mark.django_db
def test_entering_checks_what_is_declared_and_changes_nothing_when_refused() -> None:
    bot = make_player(bot=True)
    bad = _enter(bot, options=[{"num_cards": 999}])
    assert (bad.status_code, bad.json()["code"]) == (400, "validation_error")
    assert "options.0.num_cards" in bad.json()["errors"]
    assert _enter(bot, seats=[9]).json()["code"] == "validation_error"
    assert _enter(bot, max_concurrent=99).json()["code"] == "validation_error"
    assert _enter(bot, time_controls=[{"kind": "nope"}]).json()["code"] == "validation_error"
    assert _enter(bot, time_controls=[None]).json()["errors"] == {
        "time_controls.0": ["Ladder matches are timed: a time control, not null."]
    }
    assert not LadderEntry.objects.exists()
    first = _enter(bot, max_concurrent=2)
    assert first.status_code == 201, first.content
    assert first.json()["status"] == "active" and first.json()["rating"] == 1500
    assert _enter(bot, max_concurrent=1).status_code == 200  # a change, not a new entry
    assert bot.get("/ladders/gops/entry").json()["max_concurrent"] == 1
    assert bot.client.delete("/api/v1/ladders/gops/entry").json()["status"] == "left"
    assert bot.get("/ladders/gops/entry").json()["status"] == "left"
    assert bot.post("/ladders/gops/entry/resume").json()["code"] == "not_on_ladder"


@pytest.mark.django_db
def test_entries_per_account_are_capped(settings: Any) -> None:
    settings.FACEDOWN_LADDER_MAX_ENTRIES = 1
    bot = make_player(bot=True)
    assert _enter(bot).status_code == 201
    refused = bot.post("/ladders/hols-der-geier/entry", {})
    assert (refused.status_code, refused.json()["code"]) == (409, "ladder_entries_exhausted")
    assert LadderEntry.objects.filter(user=bot.user).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_waves_at_once_never_seat_an_entrant_past_its_cap() -> None:
    bots = [make_player(bot=True) for _ in range(4)]
    for bot in bots:
        assert _enter(bot, max_concurrent=1).status_code == 201
    opened: list[int] = []

    def wave() -> None:
        try:
            opened.append(ladder_pair())
        finally:
            connection.close()

    threads = [threading.Thread(target=wave) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(opened) == [0, 2]
    assert all(len(_running(bot)) == 1 for bot in bots)
    assert ladder_pair() == 0  # everyone is at their cap


@pytest.mark.django_db
def test_results_rate_the_ladder_pool_apart_and_rematches_wait(settings: Any) -> None:
    bots = [make_player(bot=True) for _ in range(4)]
    for bot in bots:
        _enter(bot)
    met: list[frozenset[int]] = []
    for _ in range(3):
        assert ladder_pair() == 2
        met += [frozenset(r.entries) for r in LadderMatch.objects.filter(finished_at__isnull=True)]
        assert _play_all(bots) == 2
    # Four entrants, three waves: every pair met once before any met twice.
    assert len(set(met)) == 6
    entries = list(LadderEntry.objects.all())
    assert all(e.played == 3 for e in entries)
    assert all(e.sigma < 25 / 3 for e in entries)
    assert len({round(e.mu, 6) for e in entries}) > 1
    assert not Rating.objects.filter(user__in=[b.user for b in bots], rated_matches__gt=0).exists()
    assert all(not m.rated for m in Match.objects.all())
    assert ladder_verify() == 6
    board = bots[0].client.get("/api/v1/ladders/gops").json()
    assert board["verification"] == {"verified": 6, "failed": 0, "pending": 0, "failures": []}
    shown = {str(figure.label): figure.value for figure in ladder_figures()}
    assert shown == {
        "Ladder transcripts verified": 6,
        "Ladder transcripts that failed verification": 0,
    }
    assert len(board["crosstable"]) == 6 and all(p["matches"] == 1 for p in board["crosstable"])
    assert len(board["entrants"]) == 4 and len(board["matches"]) == 6
    transcript = bots[0].client.get(board["matches"][0]["transcript"])
    assert transcript.status_code == 200 and transcript.json()["format"] == "facedown-transcript-v1"


@pytest.mark.django_db
def test_a_person_refusing_bots_is_never_paired_with_one() -> None:
    person, bot = make_player(), make_player(bot=True)
    person.client.patch("/api/v1/accounts/me", {"invitations_from_bots": False}, format="json")
    _enter(person), _enter(bot)
    assert ladder_pair() == 0
    others = [make_player(), make_player()]
    for other in others:
        _enter(other)
    assert ladder_pair() == 2
    assert _running(person) and _running(bot)
    assert not set(_running(person)) & set(_running(bot))


def test_the_wilson_interval() -> None:
    # 8 of 10: the textbook 95% Wilson interval is [0.490, 0.943].
    low, high = wilson(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    assert wilson(0, 5)[0] == 0.0 and 0 < wilson(0, 5)[1] < 0.5
    assert wilson(1.5, 3) == pytest.approx((1 - wilson(1.5, 3)[1], 1 - wilson(1.5, 3)[0]))


def _play_timed(row: LadderMatch, quick: Player, slow: Player, slow_from: int | None) -> None:
    """Play a ladder match of two: ``quick`` always moves; ``slow`` moves before step
    ``slow_from`` and lets the clock run out from it on (never, with None)."""
    match_id = str(row.pk)
    while Match.objects.get(pk=row.pk).status == Match.Status.ACTIVE:
        seen = quick.match(match_id)
        quick.move(match_id, seen["step"], seen["legal_moves"][0])
        if slow_from is not None and seen["step"] >= slow_from:
            overdue(row.pk)
            overdue_sweep()
        else:
            theirs = slow.match(match_id)
            slow.move(match_id, theirs["step"], theirs["legal_moves"][0])
    assert match_finished(row.pk)


@pytest.mark.django_db
def test_strikes_pause_an_entry_until_its_own_resume(settings: Any) -> None:
    """Two ladder matches in a row with a missed deadline pause the entry (reason on the page,
    in German too); a clean match between strikes starts the count again."""
    settings.FACEDOWN_LADDER_STRIKES = 2
    slow, quick = make_player(bot=True), make_player(bot=True)
    timed = {"time_controls": [{"per_step_seconds": 600, "on_timeout": "auto_move"}]}
    _enter(slow, **timed), _enter(quick, **timed)
    outcomes = []
    for slow_from in (2, None, 2, 2):  # a 3-card deal: step 3 is forced (one card left)
        assert ladder_pair() == 1
        _play_timed(LadderMatch.objects.get(finished_at__isnull=True), quick, slow, slow_from)
        outcomes.append(LadderEntry.objects.get(user=slow.user).strikes)
    assert outcomes == [1, 0, 1, 2]
    entry = slow.get("/ladders/gops/entry").json()
    assert (entry["status"], entry["paused_reason"]) == ("paused", "timeouts")
    assert ladder_pair() == 0  # a paused entry is not paired
    page = slow.client.get("/ladders/gops", HTTP_ACCEPT_LANGUAGE="de")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Rangliste: " in text and "Fristen in mehreren Ranglistenpartien" in text
    assert "Andere Ranglisten:" in text and 'href="/ladders/hols-der-geier"' in text
    assert quick.post("/ladders/gops/entry/resume").json()["code"] == "ladder_entry_not_paused"
    resumed = slow.post("/ladders/gops/entry/resume").json()
    assert (resumed["status"], resumed["paused_reason"]) == ("active", None)
    assert ladder_pair() == 1


@pytest.mark.django_db
def test_a_closing_account_leaves_and_its_export_lists_its_entries() -> None:
    bot, other = make_player(bot=True), make_player(bot=True)
    _enter(bot), _enter(other)
    exported = bot.get("/accounts/me/export")
    assert exported.status_code == 200
    assert [e["game"] for e in exported.json()["ladder_entries"]] == ["gops"]
    account_close(user=bot.user)
    assert LadderEntry.objects.get(user=bot.user).status == "left"
    assert ladder_pair() == 0  # nobody left to pair the other with


@pytest.mark.django_db
def test_larger_tables_in_a_format_every_entrant_declared() -> None:
    """Three seats where three entrants accept them; one who accepts only two waits."""
    trio = [make_player(bot=True) for _ in range(3)]
    for bot in trio:
        assert bot.post("/ladders/hols-der-geier/entry", {"seats": [3, 4]}).status_code == 201
    pair_only = make_player(bot=True)
    assert pair_only.post("/ladders/hols-der-geier/entry", {"seats": [2]}).status_code == 201
    assert ladder_pair() == 1
    (row,) = LadderMatch.objects.all()
    assert len(row.entries) == 3 and Match.objects.get(pk=row.pk).status == Match.Status.ACTIVE
    assert LadderEntry.objects.get(user=pair_only.user).pk not in row.entries


@pytest.mark.django_db
def test_the_servers_cap_on_running_ladder_matches(settings: Any) -> None:
    settings.FACEDOWN_LADDER_MAX_MATCHES = 1
    bots = [make_player(bot=True) for _ in range(4)]
    for bot in bots:
        _enter(bot)
    assert ladder_pair() == 1
    assert ladder_pair() == 0  # two wait for the running one to end
    assert sum(bool(_running(bot)) for bot in bots) == 2


@pytest.mark.django_db
def test_a_suspended_entrant_is_neither_entered_nor_paired() -> None:
    bots = [make_player(bot=True) for _ in range(3)]
    for bot in bots:
        _enter(bot)
    later = timezone.now() + timedelta(days=1)
    User.objects.filter(pk=bots[0].user.pk).update(play_suspended_until=later)
    assert ladder_pair() == 1 and not _running(bots[0])
    refused = _enter(bots[0], max_concurrent=2)
    assert (refused.status_code, refused.json()["code"]) == (403, "suspended")


@pytest.mark.django_db
def test_an_entrant_absent_from_its_first_move_is_paused_at_once() -> None:
    absent, present = make_player(bot=True), make_player(bot=True)
    _enter(absent), _enter(present)
    assert ladder_pair() == 1
    _play_timed(LadderMatch.objects.get(), present, absent, slow_from=1)
    entry = absent.get("/ladders/gops/entry").json()
    assert (entry["status"], entry["paused_reason"]) == ("paused", "missed_first_move")
    assert present.get("/ladders/gops/entry").json()["status"] == "active"
