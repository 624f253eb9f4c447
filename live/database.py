"""The database as the ASGI server's live paths use it: at most ``FACEDOWN_LIVE_DB_CONCURRENCY``
runs at once per process, each giving its connection back when done.

A waiting long-poll or an idle stream holds no connection, but one commit wakes every
long-poll of its match at once: each would run the events view on a thread of its own with a
connection of its own, and a few hundred of them used up PostgreSQL's connections for every
process of the deployment. So the long-poll's view runs (live/longpoll.py), the streams' reads
(live/views.py) and the identification of whoever opens one (live/limits.py) queue here for a
turn instead; the rest wait their turn on the event loop, holding nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

P = ParamSpec("P")
T = TypeVar("T")

_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _semaphore() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    turns = _turns.get(loop)
    if turns is None:
        turns = _turns[loop] = asyncio.Semaphore(settings.FACEDOWN_LIVE_DB_CONCURRENCY)
    return turns


@contextlib.asynccontextmanager
async def database_turn() -> AsyncIterator[None]:
    """Hold one of this process's turns at the database."""
    async with _semaphore():
        yield


def _connections_closed(fn: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            # Inside a test's transaction the connection is the test's and stays.
            for connection in connections.all(initialized_only=True):
                if not connection.in_atomic_block:
                    connection.close()

    return run


def bounded(fn: Callable[P, T]) -> Callable[P, Awaitable[T]]:
    """``fn`` run on the shared thread pool in a database turn, its connections closed after."""
    run = sync_to_async(_connections_closed(fn), thread_sensitive=False)

    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        async with database_turn():
            return await run(*args, **kwargs)

    return call
