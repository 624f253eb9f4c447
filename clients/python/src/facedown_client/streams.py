"""Reading the live streams as NDJSON (docs/live.md): one JSON object per line,
``{"type", "id", "data"}``, and an empty line as a keep-alive."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

NDJSON = "application/x-ndjson"


@dataclass(frozen=True)
class StreamItem:
    """One item of a stream. ``id`` is the event's seq on a match stream (send the last one as
    ``Last-Event-ID`` to resume), the notification's id on an account stream that numbers
    them, else None. A keep-alive is ``type == "keepalive"``, so a reader wakes up regularly
    even when nothing happens (to check whether it should stop)."""

    type: str
    id: str | None
    data: Any

    @property
    def is_keepalive(self) -> bool:
        return self.type == KEEPALIVE_TYPE


KEEPALIVE_TYPE = "keepalive"
KEEPALIVE = StreamItem(KEEPALIVE_TYPE, None, None)


def parse_lines(lines: Iterable[str]) -> Iterator[StreamItem]:
    """The items of an NDJSON body, given its lines (without their line breaks)."""
    for line in lines:
        if not line.strip():
            yield KEEPALIVE
            continue
        item = json.loads(line)
        seq = item.get("id")
        yield StreamItem(str(item["type"]), None if seq is None else str(seq), item.get("data"))
