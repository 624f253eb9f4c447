"""Publication after commit (live/publish.py): what each reader's channel carries is exactly
what ``GET /events`` shows that reader, and never depends on another seat's hidden choice."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from live.bus import LocalBus, RedisBus, match_channel
from tests.leaks import alternatives
from tests.players import Player, start_match


def _published(capture: Any, action: Callable[[], Any]) -> dict[str, list[dict[str, Any]]]:
    """The messages the change made by ``action`` hands to the bus on commit, by channel."""
    with capture() as callbacks:
        assert action().status_code == 202
    out: dict[str, list[dict[str, Any]]] = {}
    for callback in callbacks:
        if getattr(callback, "func", None).__qualname__ == "RedisBus.publish_many":
            for channel, text in callback.args[0]:
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
    readers = {match_channel(match_id, i): p for i, p in enumerate((alice, bob))}
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
    for channel in (match_channel(match_id, 1), match_channel(match_id, None)):
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
