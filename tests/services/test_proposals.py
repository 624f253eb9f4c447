"""Pause and abort by agreement: proposing, answering, expiry, and what each does to the match
and its clocks. Time is injected (``now``), never waited for."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from core.errors import ProposalClosed
from games.models import Match, MatchEvent, Proposal, Rating
from games.services.clock_changes import clocks_hold
from games.services.deadlines import step_expire
from games.services.proposals import proposal_answer, proposal_make, proposals_read
from games.services.unit_of_work import match_change
from games.time_controls import iso, parse
from tests.clocks import overdue
from tests.players import Player, start_match

DAY = 24 * 3600
#: Correspondence: three days per step.
SLOW = {"time_control": {"per_step_seconds": 3 * DAY}, "options": {"num_cards": 5}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _types(match_id: str) -> list[str]:
    rows = MatchEvent.objects.filter(match_id=match_id).order_by("seq")
    return list(rows.values_list("type", flat=True))


def _until(days: float = 2) -> str:
    return iso(timezone.now() + timedelta(days=days))


def _propose(player: Player, match_id: str, **body: Any) -> Any:
    return player.post(f"/matches/{match_id}/proposals", body)


def _answer(player: Player, match_id: str, proposal: int, answer: str) -> Any:
    return player.post(f"/matches/{match_id}/proposals/{proposal}/{answer}")


def _expiry(match: Match, seat: int) -> datetime:
    since = parse(match.clocks[seat]["since"])
    assert since is not None
    return since + timedelta(milliseconds=match.clocks[seat]["bank"])


def test_an_accepted_pause_holds_every_running_clock(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    before = Match.objects.get(pk=match_id)
    made = _propose(alice, match_id, kind="pause", until=_until(2))
    assert made.status_code == 201, made.content
    proposal = made.json()
    assert proposal["status"] == "open" and proposal["accepted"] == [0]
    assert Match.objects.get(pk=match_id).paused_until is None  # nothing yet

    accepted = _answer(bob, match_id, proposal["id"], "accept")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["status"] == "accepted" and accepted.json()["accepted"] == [0, 1]
    after = Match.objects.get(pk=match_id)
    until = parse(proposal["until"])
    assert after.paused_until == until
    answered_at = Proposal.objects.get(pk=proposal["id"]).answered_at
    assert answered_at is not None
    for seat in (0, 1):  # each clock's end moved by the pause, from the accept on
        moved = _expiry(after, seat) - _expiry(before, seat)
        assert abs(moved - (until - answered_at)) < timedelta(milliseconds=2)
    assert after.deadline == min(_expiry(after, 0), _expiry(after, 1))
    assert _types(match_id)[-3:] == ["proposal_made", "proposal_answered", "match_paused"]
    paused = alice.events(match_id)["results"][-1]
    assert paused["data"] == {"proposal": proposal["id"], "until": proposal["until"]}


def test_a_pause_never_shortens_a_longer_hold(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    away = timezone.now() + timedelta(days=10)
    with match_change(match_id) as tx:  # bob is on vacation for ten days
        tx.seats[1].held_until = away
        clocks_hold(tx, away, seats=[1])
    made = _propose(alice, match_id, kind="pause", until=_until(2)).json()
    assert _answer(bob, match_id, made["id"], "accept").status_code == 200
    match = Match.objects.get(pk=match_id)
    assert match.clocks[0]["since"] == made["until"]
    assert match.clocks[1]["since"] == iso(away)


def test_a_step_opening_during_the_pause_starts_its_clocks_at_its_end(
    alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    made = _propose(alice, match_id, kind="pause", until=_until(3)).json()
    assert _answer(bob, match_id, made["id"], "accept").status_code == 200
    assert alice.move(match_id, 1, {"card": 5}).status_code == 202
    assert bob.move(match_id, 1, {"card": 4}).status_code == 202
    match = Match.objects.get(pk=match_id)
    assert match.step == 2
    assert [clock["since"] for clock in match.clocks] == [made["until"]] * 2
    assert match.deadline == parse(made["until"]) + timedelta(days=3)


@pytest.mark.parametrize("sweep_first", [True, False])
def test_a_pause_and_an_overdue_step_in_either_order(
    alice: Player, bob: Player, sweep_first: bool
) -> None:
    """The two orders the match lock allows an accept and the sweep (tests/api races them)."""
    # plain timeouts: no automatic vacation takes over
    User.objects.filter(pk__in=[alice.user.pk, bob.user.pk]).update(auto_vacation=False)
    match_id = start_match("gops", [alice, bob], **SLOW)
    made = _propose(alice, match_id, kind="pause", until=_until(2)).json()
    overdue(match_id)
    if sweep_first:
        assert step_expire(match_id=match_id, step=1) is True
    assert _answer(bob, match_id, made["id"], "accept").status_code == 200
    expired_after = step_expire(match_id=match_id, step=1)
    match = Match.objects.get(pk=match_id)
    assert _types(match_id).count("match_paused") == 1
    if sweep_first:  # timed out before the pause: the stand-in moved, the next step is held
        assert _types(match_id).count("timeout") == 2 and match.step == 2
        assert [clock["since"] for clock in match.clocks] == [made["until"]] * 2
    else:  # paused first: the clocks that ran out now run out at the pause's end
        assert not expired_after and "timeout" not in _types(match_id) and match.step == 1
        assert match.deadline == parse(made["until"])


def test_three_players_need_both_others(alice: Player, bob: Player, carol: Player) -> None:
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    made = _propose(bob, match_id, kind="abort").json()
    first = _answer(alice, match_id, made["id"], "accept")
    assert first.json()["status"] == "open" and first.json()["accepted"] == [0, 1]
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    again = _answer(alice, match_id, made["id"], "accept")
    assert again.status_code == 409 and again.json()["code"] == "already_answered"
    last = _answer(carol, match_id, made["id"], "accept")
    assert last.json()["status"] == "accepted"
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ABORTED
    assert match.result is not None and match.result["reason"] == "aborted"
    assert match.result["winners"] == []
    aborted = MatchEvent.objects.get(match_id=match_id, type="match_aborted")
    assert aborted.data == {"operator": None, "reason": "agreed", "seat": 1}
    assert "match_finished" not in _types(match_id)
    assert not Rating.objects.filter(user__in=[alice.user, bob.user, carol.user]).exists()


def test_a_forfeit_meanwhile_neither_blocks_nor_outlives_a_proposal(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    made = _propose(alice, match_id, kind="abort").json()
    assert _answer(bob, match_id, made["id"], "accept").json()["status"] == "open"
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    # carol can no longer answer: an accept again by one who agreed makes it take effect
    assert _answer(bob, match_id, made["id"], "accept").json()["status"] == "accepted"
    assert Match.objects.get(pk=match_id).status == Match.Status.ABORTED

    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    made = _propose(alice, match_id, kind="abort").json()
    assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    closed = _answer(bob, match_id, made["id"], "accept")
    assert closed.status_code == 409 and closed.json()["code"] == "proposal_closed"
    assert _propose(bob, match_id, kind="abort").status_code == 201  # not blocked by it
    assert Proposal.objects.get(pk=made["id"]).status == Proposal.Status.WITHDRAWN


def test_a_decline_ends_it_and_changes_nothing_else(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    clocks = Match.objects.get(pk=match_id).clocks
    made = _propose(alice, match_id, kind="abort").json()
    declined = _answer(bob, match_id, made["id"], "decline")
    assert declined.json()["status"] == "declined" and declined.json()["answered_by"] == 1
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ACTIVE and match.clocks == clocks
    late = _answer(bob, match_id, made["id"], "accept")
    assert late.status_code == 409 and late.json()["code"] == "proposal_closed"
    # closed: a new one may be made
    assert _propose(bob, match_id, kind="abort").status_code == 201


def test_only_the_proposer_withdraws_and_one_proposal_at_a_time(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    made = _propose(alice, match_id, kind="abort").json()
    second = _propose(bob, match_id, kind="pause", until=_until())
    assert second.status_code == 409 and second.json()["code"] == "proposal_open"
    refused = _answer(bob, match_id, made["id"], "withdraw")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    stranger = _answer(carol, match_id, made["id"], "accept")
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_seated"
    withdrawn = _answer(alice, match_id, made["id"], "withdraw")
    assert withdrawn.json()["status"] == "withdrawn"
    listed = carol.get(f"/matches/{match_id}/proposals")  # public: a spectator reads it
    assert [p["status"] for p in listed.json()["results"]] == ["withdrawn"]
    assert _types(match_id)[-1] == "proposal_answered"
    assert alice.events(match_id)["results"][-1]["data"]["answer"] == "withdrawn"


def test_an_unanswered_proposal_expires_when_next_met(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    t0 = timezone.now()
    made = proposal_make(match_id=match_id, user=alice.user, kind="abort", now=t0)
    assert made.expires_at == t0 + timedelta(hours=48)
    late = t0 + timedelta(hours=48, seconds=1)
    with pytest.raises(ProposalClosed):
        proposal_answer(
            match_id=match_id, proposal_id=made.pk, user=bob.user, answer="accept", now=late
        )
    # Reads show it expired without writing it.
    match = Match.objects.get(pk=match_id)
    assert [p["status"] for p in proposals_read(match, late)] == ["expired"]
    assert [p["status"] for p in proposals_read(match, t0)] == ["open"]
    assert Proposal.objects.get(pk=made.pk).status == Proposal.Status.OPEN
    # The next proposal records the expiry and opens.
    again = proposal_make(match_id=match_id, user=bob.user, kind="abort", now=late)
    assert Proposal.objects.get(pk=made.pk).status == Proposal.Status.EXPIRED
    assert Proposal.objects.get(pk=again.pk).status == Proposal.Status.OPEN
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE


def test_pauses_only_where_the_time_control_allows(alice: Player, bob: Player) -> None:
    no_pause = {**SLOW, "time_control": {"per_step_seconds": 3 * DAY, "allow_pause": False}}
    match_id = start_match("gops", [alice, bob], **no_pause)
    refused = _propose(alice, match_id, kind="pause", until=_until())
    assert refused.status_code == 409 and refused.json()["code"] == "pause_not_allowed"
    assert not Proposal.objects.filter(match_id=match_id).exists()
    assert _propose(alice, match_id, kind="abort").status_code == 201

    live = start_match("gops", [alice, bob], time_control={"per_step_seconds": 60})
    refused = _propose(alice, live, kind="pause", until=_until())
    assert refused.status_code == 409 and refused.json()["code"] == "pause_not_allowed"
    untimed = start_match("gops", [alice, bob])
    refused = _propose(alice, untimed, kind="pause", until=_until())
    assert refused.status_code == 409 and refused.json()["code"] == "pause_not_allowed"


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "pause"},
        {"kind": "pause", "until": "2000-01-01T00:00:00Z"},
        {"kind": "pause", "until": "far"},
        {"kind": "nap", "until": "2000-01-01T00:00:00Z"},
        {"kind": "abort", "until": "2030-01-01T00:00:00Z"},
    ],
)
def test_bad_input_is_refused_and_changes_nothing(alice: Player, bob: Player, body: Any) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    refused = _propose(alice, match_id, **body)
    assert refused.status_code == 400 and refused.json()["code"] == "validation_error"
    assert not Proposal.objects.filter(match_id=match_id).exists()
    assert "proposal_made" not in _types(match_id)


def test_a_pause_beyond_fourteen_days_is_refused(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], **SLOW)
    refused = _propose(alice, match_id, kind="pause", until=_until(14.01))
    assert refused.status_code == 400 and refused.json()["code"] == "validation_error"
    assert _propose(alice, match_id, kind="pause", until=_until(13.9)).status_code == 201


def test_alone_with_bots_nobody_can_agree(alice: Player) -> None:
    created = alice.create("gops", ["me", {"bot": "greedy"}], **SLOW)
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    refused = _propose(alice, match_id, kind="abort")
    assert refused.status_code == 409 and refused.json()["code"] == "no_one_to_ask"


def test_the_match_shows_its_open_proposal_in_the_detail_and_the_list(
    alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match("gops", [alice, bob, carol], **SLOW)
    assert alice.match(match_id)["proposal"] is None
    made = _propose(alice, match_id, kind="pause", until=_until()).json()
    _answer(bob, match_id, made["id"], "accept")
    shown = {key: made[key] for key in ("id", "kind", "proposer", "until", "expires_at")}
    assert carol.match(match_id)["proposal"] == {**shown, "accepted": [0, 1]}
    listed = carol.get("/matches?mine=true").json()["results"]
    assert [m["proposal"] for m in listed if m["id"] == match_id] == [{**shown, "accepted": [0, 1]}]
    _answer(carol, match_id, made["id"], "decline")
    assert carol.match(match_id)["proposal"] is None
