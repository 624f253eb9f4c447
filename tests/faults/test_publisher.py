"""Publications sent without waiting for their replies (live/publisher.py), against a
redis-server of the test's own: delivered in order, replies read later, a refused publication
logged, a restarted or silent Redis noticed, a forked process on a connection of its own."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import pytest
import redis

from live.publisher import Publisher
from tests.faults.conftest import OwnRedis, wait_for


def _subscriber(url: str, *channels: str) -> Any:
    pubsub = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(*channels)
    wait_for(lambda: pubsub.get_message(timeout=0.05) is None and pubsub.subscribed, 5, "a sub")
    return pubsub


def _received(pubsub: Any, count: int) -> list[tuple[str, str]]:
    got: list[tuple[str, str]] = []
    end = time.monotonic() + 5
    while len(got) < count and time.monotonic() < end:
        message = pubsub.get_message(timeout=0.1)
        if message:
            got.append((message["channel"].decode(), message["data"].decode()))
    return got


def _publisher(url: str, **kwargs: Any) -> Publisher:
    return Publisher(redis.Redis.from_url(url, socket_timeout=0.5), **kwargs)


def test_publications_arrive_in_order_and_replies_are_read_later(own_redis: OwnRedis) -> None:
    pubsub = _subscriber(own_redis.url, "a", "b")
    publisher = _publisher(own_redis.url)
    sent = [("a", "1"), ("b", "2"), ("a", "3")]
    publisher.publish(sent)
    assert publisher.unread == 3  # nothing waited for
    publisher.publish([("b", "4")])
    assert _received(pubsub, 4) == [*sent, ("b", "4")]
    wait_for(lambda: publisher.publish([]) is None and publisher.unread == 0, 5, "replies read")


def test_a_refused_publication_is_logged(own_redis: OwnRedis, caplog: Any) -> None:
    admin = redis.Redis.from_url(own_redis.url)
    admin.execute_command("ACL", "SETUSER", "default", "-publish")  # PUBLISH answers NOPERM
    publisher = _publisher(own_redis.url)
    publisher.publish([("a", "refused")])
    with caplog.at_level(logging.WARNING, logger="live.bus"):
        wait_for(lambda: publisher.publish([]) is None and publisher.unread == 0, 5, "the reply")
    assert "Redis refused a publication" in caplog.text and "no permissions" in caplog.text


def test_a_restarted_redis_is_noticed_before_anything_is_written(own_redis: OwnRedis) -> None:
    publisher = _publisher(own_redis.url)
    publisher.publish([("a", "before")])
    wait_for(lambda: publisher.publish([]) is None and publisher.unread == 0, 5, "replies read")
    own_redis.stop()
    own_redis.start()  # the old connection is closed by the server's end
    pubsub = _subscriber(own_redis.url, "a")
    publisher.publish([("a", "after")])  # found closed, sent again on a new connection
    assert _received(pubsub, 1) == [("a", "after")]


def test_redis_down_raises_and_the_bus_only_logs(own_redis: OwnRedis, caplog: Any) -> None:
    from live.bus import RedisBus

    bus = RedisBus(own_redis.url)
    bus.publish_many([("a", "up")])
    own_redis.stop()
    with pytest.raises(redis.ConnectionError):
        bus.publisher.publish([("a", "down")])
    with caplog.at_level(logging.WARNING, logger="live.bus"):
        bus.publish_many([("a", "down")])  # the commit's hook never fails
    assert "a publication to Redis was lost" in caplog.text


def test_a_redis_that_stops_answering_ends_the_connection(own_redis: OwnRedis, caplog: Any) -> None:
    publisher = _publisher(own_redis.url, max_unread=3)
    publisher.publish([("a", "1")])
    first = publisher._connection
    redis.Redis.from_url(own_redis.url).execute_command("CLIENT", "PAUSE", "400", "ALL")
    with caplog.at_level(logging.WARNING, logger="live.bus"):
        for _ in range(5):
            publisher.publish([("a", "paused")])
    assert publisher._connection is not first  # more than 3 unanswered: a new connection
    assert "publications unconfirmed" in caplog.text


def test_a_forked_process_publishes_on_a_connection_of_its_own(own_redis: OwnRedis) -> None:
    pubsub = _subscriber(own_redis.url, "a")
    publisher = _publisher(own_redis.url)
    publisher.publish([("a", "parent")])
    parents = publisher._connection
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's outcome is its exit status
        try:
            publisher.publish([("a", "child")])
            os._exit(0 if publisher._connection is not parents else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    publisher.publish([("a", "parent again")])  # the parent's connection is untouched
    assert publisher._connection is parents
    assert _received(pubsub, 3) == [("a", "parent"), ("a", "child"), ("a", "parent again")]
