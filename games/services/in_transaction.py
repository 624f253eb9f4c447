"""The services' own work at the end of every change, inside its transaction.

Some work must commit with the change or not at all: the next match of a series
(``series.series_next``), dropping conditional rules a change made void
(``conditional.conditional_follow_up``). The unit of work calls each registered step with the
change (``MatchChange``) after the change's write is built, before it is sent with the
``COMMIT``, under the match's lock. Only service modules register here (pyproject.toml's
import contracts); whatever only reacts connects to ``follow_ups.change_committed``, sent after
the commit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_steps: list[Callable[[Any], None]] = []


def in_transaction_register(step: Callable[[Any], None]) -> None:
    """Run ``step(tx)`` at the end of every change that wrote something (module docstring)."""
    _steps.append(step)


def in_transaction_steps() -> list[Callable[[Any], None]]:
    return _steps
