"""Consent (#46): every path that seats or enters an account other than the caller's needs
that account's own act, and a recipient's settings refuse challenges and invitations before
anything is created or notified.

One table walks the paths: the caller (alice) names bob; bob is neither seated nor entered;
then bob's own act (join, accept, take over) seats or enters him. The same table then runs
with bob refusing strangers: each attempt is 403 ``invitation_refused``, creates nothing and
tells bob nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.account_feed import feed_deliverer_register
from games.models import Seat, SeatOffer
from ladder.models import LadderEntry
from ladder.services.pairing import ladder_pair
from notify.dispatch import register_channel, unregister_channel
from notify.kinds import Notification
from tests.players import Player, make_player, play_to_end, start_match
from tournaments.models import Entry, TournamentMatch
from tournaments.services.arena import arena_wave

pytestmark = pytest.mark.django_db

GOPS3 = {"game": "gops", "options": {"num_cards": 3}}
DAY = 24 * 3600


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


_feed: list[tuple[int, str]] = []


def _feed_heard(items: Any) -> None:
    _feed.extend((user, kind) for user, kind, _ in items)


feed_deliverer_register(_feed_heard)


@pytest.fixture
def told() -> Iterator[Callable[[Player], list[str]]]:
    """What each user was told: notifications on every channel and account-stream items."""
    heard: list[Notification] = []
    register_channel("test-consent", heard.extend)
    _feed.clear()

    def of(player: Player) -> list[str]:
        pk = player.user.pk
        return [n.type for n in heard if n.user_id == pk] + [k for u, k in _feed if u == pk]

    yield of
    unregister_channel("test-consent")


def _created(answer: Any) -> dict[str, Any]:
    assert answer.status_code in (200, 201), answer.content
    body: dict[str, Any] = answer.json()
    return body


def _seated(bob: Player, match_id: str) -> bool:
    return Seat.objects.filter(match_id=match_id, user=bob.user, accepted=True).exists()


def _join(bob: Player, match_id: str) -> None:
    assert bob.post(f"/matches/{match_id}/join").status_code == 200


# --- The paths: ask (alice names bob; returns a handle), seated (is bob in?), consent (bob's act)


def _tournament(alice: Player, bob: Player) -> str:
    settings = {
        "name": "Consent cup",
        **GOPS3,
        "format": "swiss",
        "rounds": 1,
        "round_limit_seconds": 3600,
        "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
    }
    tid = str(_created(alice.post("/tournaments", settings))["id"])
    return tid


def _tournament_ask(alice: Player, bob: Player) -> Any:
    tid = _tournament(alice, bob)
    return tid, alice.post(f"/tournaments/{tid}/players", {"username": bob.name})


def _tournament_entered(bob: Player, tid: str) -> bool:
    return Entry.objects.filter(tournament_id=tid, user=bob.user, joined=True).exists()


def _tournament_consent(bob: Player, tid: str) -> None:
    assert bob.get(f"/tournaments/{tid}").json()["you"]["invited"] is True
    assert bob.post(f"/tournaments/{tid}/join").status_code == 200


def _arena_ask(alice: Player, bob: Player) -> Any:
    """An arena in registration: alice invites bob, carol joins, alice opens the window."""
    settings = {
        "name": "Consent arena",
        **GOPS3,
        "format": "arena",
        "arena_minutes": 60,
        "time_control": {
            "kind": "fischer",
            "initial_seconds": 300,
            "increment_seconds": 10,
            "max_seconds": 600,
        },
        "round_limit_seconds": 3600,
        "starts_at": (timezone.now() + timedelta(days=1)).isoformat(),
    }
    tid = str(_created(alice.post("/tournaments", settings))["id"])
    answer = alice.post(f"/tournaments/{tid}/players", {"username": bob.name})
    if answer.status_code != 201:
        return tid, answer
    assert make_player().post(f"/tournaments/{tid}/join").status_code == 200
    assert alice.post(f"/tournaments/{tid}/start").status_code == 200
    return tid, answer


def _arena_seated(bob: Player, tid: str) -> bool:
    at_table = TournamentMatch.objects.filter(
        round__tournament_id=tid, players__contains=[bob.user.pk]
    ).exists()
    return at_table or _tournament_entered(bob, tid)


def _arena_consent(bob: Player, tid: str) -> None:
    """Bob joins the running arena himself; the next wave seats him."""
    assert bob.post(f"/tournaments/{tid}/join").status_code == 200
    arena_wave(tournament_id=tid)


def _challenge_ask(alice: Player, bob: Player) -> Any:
    answer = alice.post("/challenges", {**GOPS3, "to": bob.name})
    return (answer.json().get("id") if answer.status_code == 201 else None), answer


def _challenge_seated(bob: Player, challenge_id: str) -> bool:
    match_id = bob.get(f"/challenges/{challenge_id}").json()["match_id"]
    return match_id is not None and _seated(bob, match_id)


def _challenge_consent(bob: Player, challenge_id: str) -> None:
    assert bob.post(f"/challenges/{challenge_id}/accept").status_code == 200


def _bulk_ask(alice: Player, bob: Player) -> Any:
    carol = make_player()
    answer = alice.post("/bulk-pairings", {**GOPS3, "pairings": [[bob.name, carol.name]]})
    return (answer.json()["matches"][0] if answer.status_code == 201 else None), answer


def _match_ask(alice: Player, bob: Player) -> Any:
    answer = alice.create("gops", ["me", {"user": bob.name}], options={"num_cards": 3})
    return (answer.json()["id"] if answer.status_code == 201 else None), answer


def _series_ask(alice: Player, bob: Player) -> Any:
    body = {**GOPS3, "seats": ["me", {"user": bob.name}], "matches": 2}
    answer = alice.post("/series", body)
    if answer.status_code != 201:
        return None, answer
    first = alice.get(f"/series/{answer.json()['id']}").json()["matches"][0]["id"]
    return first, answer


def _rematch_ask(alice: Player, bob: Player) -> Any:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    play_to_end(match_id, [alice, bob])
    answer = alice.post(f"/matches/{match_id}/rematch")
    return (answer.json()["id"] if answer.status_code == 201 else None), answer


def _offer_ask(alice: Player, bob: Player) -> Any:
    carol, dave = make_player(), make_player()
    slow = {"time_control": {"per_step_seconds": DAY}}
    match_id = start_match("hols-der-geier", [alice, carol, dave], **slow)
    assert dave.post(f"/matches/{match_id}/resign").status_code == 200
    answer = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2, "invitee": bob.name})
    handle = (match_id, answer.json()["id"]) if answer.status_code == 201 else None
    return handle, answer


def _offer_seated(bob: Player, handle: tuple[str, int]) -> bool:
    return Seat.objects.filter(match_id=handle[0], user=bob.user).exists()


def _offer_consent(bob: Player, handle: tuple[str, int]) -> None:
    match_id, offer = handle
    assert bob.post(f"/matches/{match_id}/substitutes/{offer}/accept").status_code == 200


def _ladder_ask(alice: Player, bob: Player) -> Any:
    """No route enters another account: alice's entry and a wave leave bob out."""
    answer = alice.post("/ladders/gops/entry", {"options": [GOPS3["options"]]})
    ladder_pair()
    return None, answer


def _ladder_seated(bob: Player, _: Any) -> bool:
    entered = LadderEntry.objects.filter(user=bob.user, status="active").exists()
    return entered and Seat.objects.filter(user=bob.user, match__ladder__isnull=False).exists()


def _ladder_consent(bob: Player, _: Any) -> None:
    """Bob's entry is his standing act: the next wave seats him (no invitation, no budget)."""
    assert bob.post("/ladders/gops/entry", {"options": [GOPS3["options"]]}).status_code == 201
    assert ladder_pair() == 1


@dataclass(frozen=True)
class Path:
    name: str
    ask: Callable[[Player, Player], Any]
    seated: Callable[[Player, Any], bool]
    consent: Callable[[Player, Any], None]
    #: Whether bob's "only opponents" setting refuses it (a rematch follows a finished
    #: match of the two: they are opponents).
    refusable: bool = True


PATHS = [
    Path("tournament invitation", _tournament_ask, _tournament_entered, _tournament_consent),
    Path("arena", _arena_ask, _arena_seated, _arena_consent),
    Path("directed challenge", _challenge_ask, _challenge_seated, _challenge_consent),
    Path("bulk pairing", _bulk_ask, _seated, _join),
    Path("match with a named seat", _match_ask, _seated, _join),
    Path("series", _series_ask, _seated, _join),
    Path("rematch", _rematch_ask, _seated, _join, refusable=False),
    Path("seat offered to a substitute", _offer_ask, _offer_seated, _offer_consent),
    # A pairing is not an invitation: nothing to refuse, no budget (the entry was bob's act).
    Path("ladder entry", _ladder_ask, _ladder_seated, _ladder_consent, refusable=False),
]


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_nobody_is_seated_or_entered_without_their_own_act(path: Path) -> None:
    alice, bob = make_player(), make_player()
    handle, answer = path.ask(alice, bob)
    assert answer.status_code in (200, 201), answer.content
    assert not path.seated(bob, handle), f"{path.name}: bob is in without his own act"
    path.consent(bob, handle)
    assert path.seated(bob, handle), f"{path.name}: bob's own act did not seat him"


@pytest.mark.parametrize(
    "path", [p for p in PATHS if p.refusable], ids=[p.name for p in PATHS if p.refusable]
)
def test_a_refusal_setting_stops_every_path_before_anything_is_sent(
    path: Path, told: Callable[[Player], list[str]], django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_player(), make_player()
    changed = bob.client.patch(
        "/api/v1/accounts/me", {"invitations_from": "opponents"}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["invitations_from"] == "opponents"
    with django_capture_on_commit_callbacks(execute=True):
        handle, answer = path.ask(alice, bob)
    assert (answer.status_code, answer.json()["code"]) == (403, "invitation_refused")
    assert handle is None or not path.seated(bob, handle)
    assert told(bob) == []
    assert not SeatOffer.objects.filter(invitee=bob.user).exists()
    assert not Seat.objects.filter(user=bob.user).exists()
    assert not Entry.objects.filter(user=bob.user).exists()


def test_bot_accounts_are_refused_when_the_player_says_so(
    told: Callable[[Player], list[str]], django_capture_on_commit_callbacks: Any
) -> None:
    program, person = make_player(bot=True), make_player()
    person.client.patch("/api/v1/accounts/me", {"invitations_from_bots": False}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        answer = program.post("/challenges", {**GOPS3, "to": person.name})
    assert (answer.status_code, answer.json()["code"]) == (403, "invitation_refused")
    assert told(person) == []
    friend = make_player()
    assert friend.post("/challenges", {**GOPS3, "to": person.name}).status_code == 201


def test_opponents_of_a_finished_match_may_still_invite() -> None:
    alice, bob = make_player(), make_player()
    bob.client.patch("/api/v1/accounts/me", {"invitations_from": "opponents"}, format="json")
    refused = alice.post("/challenges", {**GOPS3, "to": bob.name})
    assert refused.status_code == 403
    match_id = start_match("gops", [bob, alice], options={"num_cards": 3})
    play_to_end(match_id, [bob, alice])
    assert alice.post("/challenges", {**GOPS3, "to": bob.name}).status_code == 201
