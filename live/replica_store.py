"""The read replica's gate keeps its two keys (games/replica_gate.py) in the live bus's Redis:
written on the bus's publisher, which sends without waiting for the reply (no round trip on a
write request), read with one ``MGET`` on the bus's client (its short socket timeout). With
the in-process bus (no Redis) there is no store: replica reads go to the primary."""

from __future__ import annotations

from collections.abc import Sequence

from live.bus import RedisBus, bus


class BusStore:
    def send(self, commands: Sequence[tuple[str, ...]]) -> None:
        shared = bus()
        if isinstance(shared, RedisBus):
            shared.send(list(commands))  # a failure is logged there, never raised

    def read(self, keys: list[str]) -> list[bytes | str | None] | None:
        shared = bus()
        if not isinstance(shared, RedisBus):
            return None
        return shared.client.mget(keys)
