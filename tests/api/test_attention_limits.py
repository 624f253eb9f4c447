"""Limits on spending another account's attention (#46): the hourly budget of invitations from
one account to another across every source, proposals per seat and match, bot accounts and
open challenges, and `rated` saying up front what happens between people and bot accounts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import InvitationCount, Match, Proposal
from games.services.consent import invitations_allow
from games.services.proposals import proposal_make
from games.services.purge import data_purge
from social.models import Challenge
from tests.api.test_concurrency import race
from tests.players import API, Player, make_player, play_to_end, start_match

pytestmark = pytest.mark.django_db

GOPS3 = {"game": "gops", "options": {"num_cards": 3}}


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _code(answer: Any) -> tuple[int, str | None]:
    return answer.status_code, answer.json().get("code")


@override_settings(FACEDOWN_INVITATIONS_PER_HOUR=10)
def test_one_account_invites_another_at_most_the_hourly_budget_from_every_source() -> None:
    """The measure of #46: before, one bulk pairing invited a stranger to 500 matches and ten
    an hour made 5,000; now every source together stops at the budget (10)."""
    alice, bob, carol = make_player(), make_player(), make_player()
    pairs = [[bob.name, carol.name]] * 500
    flood = alice.post("/bulk-pairings", {**GOPS3, "pairings": pairs})
    assert _code(flood) == (429, "invitations_exhausted")
    assert flood.json()["username"] in (bob.name, carol.name) and flood.json()["limit"] == 10
    assert not Match.objects.exists()  # all or none: nothing was created, nobody was told
    sent = 0
    sources = [
        lambda: alice.post("/bulk-pairings", {**GOPS3, "pairings": [[bob.name, carol.name]] * 3}),
        lambda: alice.post("/challenges", {**GOPS3, "to": bob.name}),
        lambda: alice.create("gops", ["me", {"user": bob.name}], options={"num_cards": 3}),
    ]
    for source in sources * 4:
        answer = source()
        if answer.status_code == 429:
            assert answer.json()["code"] == "invitations_exhausted"
            continue
        assert answer.status_code == 201, answer.content
        sent += len(answer.json()["matches"]) if "matches" in answer.json() else 1
    assert sent == 10  # bob: 3 + 1 + 1 + 3 + 1 + 1; then every source is refused
    # Another sender, or the same one to someone else, has a budget of its own.
    assert make_player().post("/challenges", {**GOPS3, "to": bob.name}).status_code == 201
    dave = make_player()
    assert alice.post("/challenges", {**GOPS3, "to": dave.name}).status_code == 201
    # The next clock hour starts a new count.
    invitations_allow(
        sender=alice.user, recipients=[bob.user.pk], now=timezone.now() + timedelta(hours=1)
    )


@override_settings(FACEDOWN_PROPOSALS_PER_HOUR=5)
def test_proposals_of_one_seat_are_capped_withdrawn_ones_counted() -> None:
    alice, bob = make_player(), make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 13})
    for _ in range(5):
        made = alice.post(f"/matches/{match_id}/proposals", {"kind": "abort"})
        assert made.status_code == 201, made.content
        withdrawn = alice.post(f"/matches/{match_id}/proposals/{made.json()['id']}/withdraw")
        assert withdrawn.status_code == 200
    refused = alice.post(f"/matches/{match_id}/proposals", {"kind": "abort"})
    assert _code(refused) == (429, "proposals_exhausted")
    assert Proposal.objects.filter(match_id=match_id).count() == 5
    # Bob's seat has a budget of its own; an hour after the first, alice may propose again.
    assert bob.post(f"/matches/{match_id}/proposals", {"kind": "abort"}).status_code == 201
    bob_open = Proposal.objects.get(match_id=match_id, status="open")
    bob.post(f"/matches/{match_id}/proposals/{bob_open.pk}/withdraw")
    later = timezone.now() + timedelta(hours=1, seconds=1)
    proposal_make(match_id=match_id, user=alice.user, kind="abort", now=later)


def _session(player: Player) -> APIClient:
    client = APIClient()
    client.force_login(player.user)
    return client


def test_a_bot_accounts_web_session_starts_no_match() -> None:
    program, person = make_player(bot=True), make_player()
    web = _session(program)
    house = web.post("/api/v1/challenges", {**GOPS3, "house_bot": "greedy"}, format="json")
    assert _code(house) == (403, "insufficient_scope")
    open_one = person.post("/challenges", {**GOPS3, "allow_bots": True}).json()
    accepted = web.post(f"/api/v1/challenges/{open_one['id']}/accept")
    assert _code(accepted) == (403, "insufficient_scope")
    assert not Match.objects.exists()


def test_open_challenges_admit_bot_accounts_only_when_they_allow_bots() -> None:
    program, person = make_player(bot=True), make_player()
    people_only = person.post("/challenges", GOPS3).json()
    assert people_only["allow_bots"] is False
    assert people_only["id"] not in [c["id"] for c in program.get("/challenges").json()["open"]]
    refused = program.post(f"/challenges/{people_only['id']}/accept")
    assert _code(refused) == (403, "bots_not_allowed")
    welcome = person.post("/challenges", {**GOPS3, "allow_bots": True}).json()
    assert welcome["id"] in [c["id"] for c in program.get("/challenges").json()["open"]]
    accepted = program.post(f"/challenges/{welcome['id']}/accept")
    assert accepted.status_code == 200, accepted.content
    # A person and a bot account are rated apart: the match says so before it starts.
    assert person.match(accepted.json()["match_id"])["rated"] is False


def test_rated_says_up_front_what_happens_between_a_person_and_a_bot_account() -> None:
    program, person = make_player(bot=True), make_player()
    challenge = person.post("/challenges", {**GOPS3, "to": program.name, "rated": True})
    assert challenge.status_code == 201 and challenge.json()["rated"] is False
    created = person.create("gops", ["me", {"user": program.name}], options={"num_cards": 3})
    assert created.status_code == 201 and created.json()["rated"] is False
    match_id = start_match("gops", [person, program], options={"num_cards": 3}, rated=True)
    assert person.match(match_id)["rated"] is False
    play_to_end(match_id, [person, program])
    finished = [e for e in person.events(match_id)["results"] if e["type"] == "match_finished"]
    assert finished[0]["data"]["ratings"] is None
    # An open seat taken by a bot account turns a rated match unrated before it starts.
    other = make_player()
    opened = other.create("gops", ["me", "open"], options={"num_cards": 3}, rated=True)
    assert opened.json()["rated"] is True
    joined = program.post(f"/matches/{opened.json()['id']}/join")
    assert joined.status_code == 200 and joined.json()["rated"] is False


def test_the_purge_forgets_the_counts_of_past_hours() -> None:
    alice, bob = make_player(), make_player()
    now = timezone.now()
    invitations_allow(sender=alice.user, recipients=[bob.user.pk], now=now - timedelta(hours=2))
    invitations_allow(sender=alice.user, recipients=[bob.user.pk], now=now)
    assert data_purge(now=now, parts=("invitations",)) == {"invitations": 1}
    assert InvitationCount.objects.get().count == 1


@pytest.mark.django_db(transaction=True)
@override_settings(FACEDOWN_INVITATIONS_PER_HOUR=1)
def test_two_invitations_at_once_at_the_budget_pass_once() -> None:
    """The count is a database row (one upsert under its row lock), so two requests released
    together on two connections cannot both take the last invitation."""
    alice, bob = make_player(), make_player()
    url = f"{API}/challenges"
    body = {**GOPS3, "to": bob.name}
    # The schema guard builds the OpenAPI schema on first use, which is not thread-safe: once
    # here, before the two threads.
    assert alice.get("/challenges").status_code == 200
    answers = race([lambda client: client.post(url, body, format="json")] * 2, [alice, alice])
    assert sorted(a.status for a in answers) == [201, 429], [a.body for a in answers]
    assert Challenge.objects.filter(to=bob.user).count() == 1
