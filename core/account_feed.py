"""Items for one user's account stream that are not a match's notification (challenges).

The apps that make them (``social``) sit below the stream (``live``), so they hand them here;
the stream app registers the one deliverer at start-up. Call after the change committed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: One item: the user it is for, its type and its data (JSON-ready).
FeedItem = tuple[int, str, dict[str, Any]]
Deliver = Callable[[Sequence[FeedItem]], None]

_deliverers: list[Deliver] = []


def feed_deliverer_register(deliver: Deliver) -> None:
    if deliver not in _deliverers:
        _deliverers.append(deliver)


def feed_send(items: Sequence[FeedItem]) -> None:
    for deliver in _deliverers:
        deliver(items)
