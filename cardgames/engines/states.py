"""Copying JSON states: engines never change the state they were given."""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import TypeVar, cast

StateT = TypeVar("StateT", bound=Mapping[str, object])


def clone(state: StateT) -> StateT:
    """A deep copy of a JSON state, several times faster than ``copy.deepcopy``.

    Through ``marshal`` (C; half the time of the walk below for a GOPS state): format 2 keeps
    no references, so a list or dict that appears twice is copied twice, as the walk copies
    it. A state holding anything marshal refuses (a subclass of dict, an object) is walked.
    """
    try:
        return cast(StateT, marshal.loads(marshal.dumps(cast(dict[str, object], state), 2)))
    except ValueError:
        return cast(StateT, {key: _clone(item) for key, item in state.items()})


def without_history(state: StateT) -> StateT:
    """A deep copy of ``state`` without its ``history``, for engines that share the (never
    changed) history entries with the new state instead of copying them."""
    return cast(StateT, {key: _clone(item) for key, item in state.items() if key != "history"})


def _clone(value: object) -> object:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value
