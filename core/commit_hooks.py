"""Context around the hooks a commit runs (``transaction.on_commit``), for all of them at once.

An app registers a context manager factory once (its ``ready``); the PostgreSQL backend
(``core.postgresql``) enters every registered one before running a commit's hooks and leaves
them after the last hook, also when a hook raises. ``live`` uses it to send everything a
commit publishes on Redis (the change's events and the users' notifications, which separate
hooks produce) as one pipeline: one round trip per commit instead of one per hook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

_around: list[Callable[[], AbstractContextManager[object]]] = []


def commit_hooks_around(factory: Callable[[], AbstractContextManager[object]]) -> None:
    """Enter ``factory()`` around every commit's hooks (registered once; a repeat is ignored)."""
    if factory not in _around:
        _around.append(factory)


@contextmanager
def commit_hooks_context() -> Iterator[None]:
    with ExitStack() as stack:
        for factory in _around:
            stack.enter_context(factory())
        yield
