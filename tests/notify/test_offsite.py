"""``User.offsite_channels`` (notify/offsite.py): set with the first destination outside the
site, cleared with the last, and the outbound job enqueued only for users who have one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from accounts.authentication import forget_cached_tokens
from accounts.models import User
from games import dispatch
from notify.models import PushSubscription, Webhook
from notify.offsite import offsite_refresh
from tests.notify.conftest import verify
from tests.players import Player, make_player, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def flag(player: Player) -> bool:
    return User.objects.values_list("offsite_channels", flat=True).get(pk=player.user.pk)


def hook(player: Player, **fields: Any) -> Webhook:
    return Webhook.objects.create(
        user=player.user, url="https://example.com/h", secret="s", **fields
    )


def push(player: Player, n: int = 1) -> PushSubscription:
    return PushSubscription.objects.create(
        user=player.user,
        endpoint=f"https://push.example.com/{player.name}/{n}",
        p256dh="k",
        auth="a",
    )


def test_the_flag_follows_every_kind_of_destination(alice: Player) -> None:
    assert flag(alice) is False
    alice.user.email = "alice@example.com"
    alice.user.save()
    verify(alice.user)
    assert flag(alice) is True
    first = hook(alice)
    alice.user.notification_settings.verified_email = ""
    alice.user.notification_settings.save()
    assert flag(alice) is True  # the webhook is left
    first.active = False  # disabled after repeated failures
    first.save()
    assert flag(alice) is False
    one, two = push(alice, 1), push(alice, 2)
    assert flag(alice) is True
    one.delete()
    assert flag(alice) is True
    PushSubscription.objects.filter(pk=two.pk).delete()
    assert flag(alice) is False
    hook(alice)
    assert flag(alice) is True
    Webhook.objects.filter(user=alice.user).delete()
    assert flag(alice) is False


def test_a_failed_refresh_never_leaves_a_new_destination_unflagged(
    alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(user_id: int) -> None:
        raise RuntimeError("database gone")

    monkeypatch.setattr("notify.offsite.offsite_refresh", broken)
    hook(alice)  # the after-commit refresh fails (logged); the flag was set in the transaction
    assert flag(alice) is True


def test_concurrent_adds_and_removes_end_with_the_truth() -> None:
    players = [make_player() for _ in range(6)]
    for player in players:
        push(player, 0)
    barrier = threading.Barrier(len(players) * 2)

    def add(player: Player) -> None:
        barrier.wait()
        hook(player)

    def remove(player: Player) -> None:
        barrier.wait()
        PushSubscription.objects.filter(user=player.user).delete()

    threads = [threading.Thread(target=f, args=(p,)) for p in players for f in (add, remove)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    from django.db import connections

    connections.close_all()
    assert all(flag(p) for p in players)
    for player in players:
        Webhook.objects.filter(user=player.user).delete()
        offsite_refresh(player.user.pk)
        assert flag(player) is False


@pytest.fixture
def enqueued(settings: Any) -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Every job handed to the task runner (not run)."""
    seen: list[tuple[str, tuple[Any, ...]]] = []

    def record(name: str, args: tuple[Any, ...], eta: datetime | None) -> None:
        seen.append((name, args))

    dispatch.runner_register("record-test", record)
    settings.FACEDOWN_TASK_RUNNER = "record-test"
    yield seen


def outbound(jobs: list[tuple[str, tuple[Any, ...]]]) -> list[list[dict[str, Any]]]:
    return [args[0] for name, args in jobs if name == "notifications_outbound"]


def test_moves_between_players_without_destinations_enqueue_no_outbound_job(
    alice: Player, bob: Player, enqueued: list[tuple[str, tuple[Any, ...]]]
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 5})
    # Neither the invitation (seats built from freshly read user rows) nor the start.
    assert outbound(enqueued) == []
    for step in (1, 2):
        for player in (alice, bob):
            card = player.match(match_id)["legal_moves"][0]
            assert player.move(match_id, step, card).status_code == 202
    assert alice.match(match_id)["step"] == 3
    assert outbound(enqueued) == []


def test_only_the_recipients_with_a_destination_are_in_the_job(
    alice: Player, bob: Player, enqueued: list[tuple[str, tuple[Any, ...]]]
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    hook(alice)
    enqueued.clear()
    for player in (alice, bob):
        card = player.match(match_id)["legal_moves"][0]
        assert player.move(match_id, 1, card).status_code == 202
    batches = outbound(enqueued)
    assert batches, "alice has a webhook: the step's notifications must go out"
    users = {item["user"] for batch in batches for item in batch}
    assert users == {alice.user.pk}


def test_an_invitation_goes_out_to_an_invited_player_with_a_destination(
    alice: Player, bob: Player, enqueued: list[tuple[str, tuple[Any, ...]]]
) -> None:
    hook(bob)
    created = alice.create("gops", ["me", {"user": bob.name}])
    assert created.status_code == 201, created.content
    batches = outbound(enqueued)
    assert [(item["user"], item["type"]) for batch in batches for item in batch] == [
        (bob.user.pk, "invited")
    ]


def test_the_creators_flag_is_read_fresh_not_from_the_token_cache(
    alice: Player, bob: Player, enqueued: list[tuple[str, tuple[Any, ...]]], settings: Any
) -> None:
    """Alice authenticates (her user row is cached with the token), then adds a webhook; the
    match she then creates with a bot starts at once, and her "match started" must go out."""
    settings.FACEDOWN_TOKEN_CACHE_SECONDS = 30
    forget_cached_tokens()
    try:
        assert alice.get("/accounts/me").status_code == 200
        hook(alice)
        created = alice.create("gops", ["me", {"bot": "random"}])
        assert created.status_code == 201, created.content
    finally:
        forget_cached_tokens()
    users = {item["user"] for batch in outbound(enqueued) for item in batch}
    assert alice.user.pk in users
