"""The size of the randomized tests: CI plays a fixed count of seeded playouts; outside CI,
``FACEDOWN_TEST_SCALE=N`` plays N times as many (the first ones are CI's, same seeds)."""

from __future__ import annotations

import os


def scaled(count: int) -> int:
    """``count`` seeded playouts, times ``FACEDOWN_TEST_SCALE`` (a whole number, 1 by default)."""
    scale = int(os.environ.get("FACEDOWN_TEST_SCALE", "1") or 1)
    if scale < 1:
        raise ValueError(f"FACEDOWN_TEST_SCALE must be a whole number from 1, not {scale}")
    return count * scale
