"""The deal stream: every random choice of a match, derived from its committed seed.

Block *i* is ``HMAC-SHA256(key=seed, msg=UTF-8("facedown-rng-v1|" + match_id + "|" +
"|".join(client seeds in seat order, "" for none) + "|" + str(i)))``; each block yields four
unsigned 64-bit big-endian integers used in order. ``randbelow`` rejects draws at or above the
largest multiple of ``n`` below 2**64, so every residue is equally likely; ``shuffle`` is the
Fisher-Yates walk from the last index down to 1. ``docs/fairness.md`` gives test vectors.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64


class DealRng:
    """A deterministic stream of integers; the only randomness an engine may use."""

    def __init__(self, seed: bytes, match_id: str, client_seeds: Sequence[str | None]) -> None:
        if len(seed) != 32:
            raise ValueError("seed must be 32 bytes")
        self._seed = seed
        self._prefix = "facedown-rng-v1|{}|{}|".format(
            match_id, "|".join(s or "" for s in client_seeds)
        )
        self._words = self._stream()

    def _stream(self) -> Iterator[int]:
        block = 0
        while True:
            message = (self._prefix + str(block)).encode()
            digest = hmac.new(self._seed, message, hashlib.sha256).digest()
            for offset in range(0, 32, 8):
                yield int.from_bytes(digest[offset : offset + 8], "big")
            block += 1

    def next_u64(self) -> int:
        return next(self._words)

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _TWO_64 - (_TWO_64 % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        result = list(items)
        self.shuffle(result)
        return result
