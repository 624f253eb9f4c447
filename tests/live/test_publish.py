"""Publication after commit (live/publish.py): what each reader's channel carries is exactly
what ``GET /events`` shows that reader, and never depends on another seat's hidden choice."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from games.services.follow_ups import change_committed
from live import bus as live_bus
from live.bus import (
    LOG_NOTICE,
    LocalBus,
    RedisBus,
    bus,
    match_channel,
    seats_channel,
    user_channel,
)
from live.publish import change_messages
from tests.leaks import alternatives
from tests.players import Player, start_match


def _handed(capture: Any, action: Callable[[], Any], status: int) -> list[tuple[str, str]]:
    """What ``live.publish`` hands to the bus for the changes ``action`` commits (it receives
    ``change_committed``, sent once each change committed)."""
    messages: list[tuple[str, str]] = []

    def record(change: Any, **_: Any) -> None:
        messages.extend(change_messages(change))

    assert change_committed.has_listeners()
    change_committed.connect(record, dispatch_uid="test.handed")
    try:
        with capture(execute=True):
            assert action().status_code == status
    finally:
        change_committed.disconnect(dispatch_uid="test.handed")
    return messages


def _published(capture: Any, action: Callable[[], Any]) -> dict[str, list[dict[str, Any]]]:
    """The messages the change made by ``action`` hands to the bus on commit, by channel."""
    out: dict[str, list[dict[str, Any]]] = {}
    for channel, text in _handed(capture, action, 202):
        out.setdefault(channel, []).extend(json.loads(text))
    return out


CASES = [
    ("gops", {}, True),
    ("gops", {}, False),
    ("hols-der-geier", {"history": "table_only"}, True),
]


@pytest.mark.parametrize(
    ("game", "options", "disclose"), CASES, ids=["gops", "undisclosed", "hols-table-only"]
)
def test_channels_carry_what_the_event_feed_shows_each_reader(
    game: str,
    options: dict[str, Any],
    disclose: bool,
    alice: Player,
    bob: Player,
    carol: Player,
    django_capture_on_commit_callbacks: Any,
) -> None:
    match_id = start_match(game, [alice, bob], options=options, disclose_submitted=disclose)
    readers = {match_channel(match_id, i, p.user.pk): p for i, p in enumerate((alice, bob))}
    readers[match_channel(match_id, None)] = carol
    for _ in range(2):  # two steps
        for mover in (alice, bob):
            before = alice.events(match_id)["last_seq"]
            seen = mover.match(match_id)
            published = _published(
                django_capture_on_commit_callbacks,
                lambda: mover.move(match_id, seen["step"], seen["legal_moves"][-1]),  # noqa: B023
            )
            if before == alice.events(match_id)["last_seq"]:
                assert published == {}  # no event, nothing published: nobody learns a thing
                continue
            # Right after the commit, each channel carries what the feed shows its reader
            # (under table_only, a seat's next move hides a step's data again).
            for channel, reader in readers.items():
                assert published[channel] == reader.events(match_id, before)["results"]
        assert disclose or published.keys() == readers.keys()


def test_another_seats_hidden_choice_never_changes_a_publication(
    alice: Player, bob: Player, django_capture_on_commit_callbacks: Any
) -> None:
    match_id = start_match("gops", [alice, bob])

    def bid(card: int) -> Callable[[], dict[str, list[dict[str, Any]]]]:
        return lambda: _published(
            django_capture_on_commit_callbacks, lambda: alice.move(match_id, 1, {"card": card})
        )

    low, high = alternatives(bid(1), bid(13))
    for channel in (match_channel(match_id, 1, bob.user.pk), match_channel(match_id, None)):
        assert low[channel] == high[channel]  # byte for byte: same seq, time, data
    assert low.keys() == high.keys()


def _roundtrip(bus: Any, threaded: bool) -> list[str]:
    async def main() -> list[str]:
        listener = await bus.subscribe("test:a", "test:b")
        messages = [("test:a", "one"), ("test:c", "none"), ("test:b", "two")]
        if threaded:  # publishers are request and worker threads
            publisher = threading.Thread(target=bus.publish_many, args=(messages,))
            publisher.start()
            publisher.join()
        else:
            bus.publish_many(messages)
        got = [await asyncio.wait_for(listener.get(), 5) for _ in range(2)]
        await listener.close()
        return got

    return asyncio.run(main())


def test_local_bus_delivers_from_any_thread() -> None:
    assert _roundtrip(LocalBus(), threaded=True) == ["one", "two"]


def test_redis_bus_delivers_and_survives_a_new_event_loop(settings: Any) -> None:
    bus = RedisBus(settings.REDIS_URL)
    assert _roundtrip(bus, threaded=False) == ["one", "two"]
    assert _roundtrip(bus, threaded=True) == ["one", "two"]  # a second asyncio.run


@pytest.mark.django_db(transaction=True)
def test_a_commit_sends_its_events_and_notifications_in_one_write(
    alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change's events (one hook) and the players' notifications (another hook) leave in
    one write to Redis: core/commit_hooks.py around the hooks, live.bus batching inside."""
    the_bus = bus()
    assert isinstance(the_bus, RedisBus)
    match_id = start_match("gops", [alice, bob])
    sent: list[list[str]] = []
    real_send = the_bus.publisher.send

    def counted_send(commands: Any) -> None:
        sent.append([command[1] for command in commands if command[0] == "PUBLISH"])
        real_send(commands)

    def move(player: Player, card: int) -> None:
        try:
            assert player.move(match_id, 1, {"card": card}).status_code == 202
        finally:
            connection.close()  # this thread's own connection

    async def listen() -> list[str]:
        channels = (match_channel(match_id, 0, alice.user.pk), user_channel(alice.user.pk))
        listener = await the_bus.subscribe(*channels)
        try:
            await asyncio.to_thread(move, alice, 5)
            await asyncio.to_thread(move, bob, 7)
            # Two event batches for seat 0, and one notice for both of alice's notifications.
            return [await asyncio.wait_for(listener.get(), 5) for _ in range(3)]
        finally:
            await listener.close()

    monkeypatch.setattr(the_bus.publisher, "send", counted_send)
    received = asyncio.run(listen())
    # Two commits (two moves), each one write; bob's carries the step's events for every
    # reader and alice's "step resolved" notification together.
    assert len(sent) == 2, sent
    resolving = sent[1]
    seat_0 = match_channel(match_id, 0, alice.user.pk)
    assert seat_0 in resolving and match_channel(match_id, None) in resolving
    assert user_channel(alice.user.pk) in resolving
    assert LOG_NOTICE in received  # alice's account log gained her notification
    logged = [json.loads(text) for _, text in the_bus.account_items(alice.user.pk, None)]
    assert any(item["data"].get("match") == match_id for item in logged), logged
    kinds = [json.loads(text) for text in received if text != LOG_NOTICE]
    assert sum(isinstance(k, list) for k in kinds) >= 1  # event batches arrived too


@pytest.mark.django_db(transaction=True)
def test_what_committed_is_published_even_when_a_later_hook_raises() -> None:
    the_bus = bus()

    async def listen() -> list[str]:
        listener = await the_bus.subscribe("test:batched")

        def commit() -> None:
            def fail() -> None:
                raise RuntimeError("a later hook failed")

            try:
                with pytest.raises(RuntimeError), transaction.atomic():
                    transaction.on_commit(
                        lambda: the_bus.publish_many([("test:batched", "first")]), robust=True
                    )
                    transaction.on_commit(fail)  # not robust: Django stops the hooks here
                    transaction.on_commit(lambda: the_bus.publish_many([("test:batched", "x")]))
                # the thread's batch is closed again: a later publication goes out at once
                assert getattr(live_bus._batch, "messages", None) is None
            finally:
                connection.close()

        try:
            await asyncio.to_thread(commit)
            return [await asyncio.wait_for(listener.get(), 5)]
        finally:
            await listener.close()

    assert asyncio.run(listen()) == ["first"]


def test_only_a_change_of_hands_publishes_the_occupancy_notice(
    alice: Player, bob: Player, carol: Player, django_capture_on_commit_callbacks: Any
) -> None:
    """A move publishes no notice (no stream reads anything for it); a seat left, or taken,
    does, naming each seat's holder; a seat's events go to the channel of its holder."""
    created = alice.create("gops", ["me", {"user": bob.name}])
    match_id = created.json()["id"]
    notice = seats_channel(match_id)

    def change(path: str, who: Player, status: int = 200) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        handed = _handed(django_capture_on_commit_callbacks, lambda: who.post(path), status)
        for channel, text in handed:
            out.setdefault(channel, []).append(json.loads(text))
        return out

    left = change(f"/matches/{match_id}/resign", bob)
    assert left[notice] == [{"seats": [alice.user.pk, None]}]
    assert match_channel(match_id, 0, alice.user.pk) in left  # bob's old seat: no channel
    taken = change(f"/matches/{match_id}/join", carol)
    assert taken[notice] == [{"seats": [alice.user.pk, carol.user.pk]}]
    assert match_channel(match_id, 1, carol.user.pk) in taken
    moved = _published(
        django_capture_on_commit_callbacks, lambda: alice.move(match_id, 1, {"card": 3})
    )
    assert notice not in moved and match_channel(match_id, 1, carol.user.pk) in moved
