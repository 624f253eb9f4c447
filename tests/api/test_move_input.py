"""``MoveInput.fast`` accepts exactly the bodies ``MoveInput`` accepts among the shapes it
handles, returns the same validated data, and leaves every other body to the serializer."""

from __future__ import annotations

from typing import Any

import pytest

from core.serializers import MAX_INT
from games.api.serializers import MoveInput

COMMITMENT = "ab" * 32

BODIES: list[Any] = [
    {"step": 1, "move": {"card": 3}},
    {"step": MAX_INT, "move": {}},
    {"step": 7, "move": {"card": None, "cards": [1, 2], "nested": {"a": 1}}},
    {"step": 2, "commitment": COMMITMENT},
    {"step": 0, "move": {"card": 3}},
    {"step": -1, "move": {"card": 3}},
    {"step": MAX_INT + 1, "move": {"card": 3}},
    {"step": True, "move": {"card": 3}},
    {"step": 1.0, "move": {"card": 3}},
    {"step": "1", "move": {"card": 3}},
    {"step": None, "move": {"card": 3}},
    {"step": 1, "move": [3]},
    {"step": 1, "move": "card"},
    {"step": 1, "move": None},
    {"step": 1},
    {"move": {"card": 3}},
    {"step": 1, "move": {"card": 3}, "extra": 1},
    {"step": 1, "move": {"card": 3}, "commitment": COMMITMENT},
    {"step": 1, "commitment": COMMITMENT.upper()},
    {"step": 1, "commitment": COMMITMENT[:-1]},
    {"step": 1, "commitment": COMMITMENT + "\n"},
    {"step": 1, "commitment": COMMITMENT + "0"},
    {"step": 1, "commitment": 5},
    {"step": 1, "card": 3},
    [1, 2],
    "step",
    None,
    {},
]


@pytest.mark.parametrize("body", BODIES, ids=[repr(b)[:40] for b in BODIES])
def test_the_fast_path_agrees_with_the_serializer(body: Any) -> None:
    serializer = MoveInput(data=body)
    valid = serializer.is_valid()
    fast = MoveInput.fast(body)
    if fast is not None:
        assert valid, serializer.errors
        assert fast == dict(serializer.validated_data)
    # else: left to the serializer, which refuses it with its own errors, or accepts what
    # only it knows how to clean (a commitment with a trailing newline, trimmed).


def test_the_usual_bodies_take_the_fast_path() -> None:
    for body in BODIES[:4]:
        assert MoveInput.fast(body) is not None, body
