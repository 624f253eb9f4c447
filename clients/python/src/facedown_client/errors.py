"""The error a refused request raises: the server's problem+json, with its stable ``code``."""

from __future__ import annotations

from typing import Any


class FacedownError(Exception):
    """Base of every error this package raises."""


class ApiError(FacedownError):
    """A 4xx or 5xx answer. ``code`` is the server's stable error code (``illegal_move``,
    ``stale_step``, …; docs/api.md lists them), ``problem`` the whole problem+json body."""

    def __init__(
        self, status: int, problem: dict[str, Any], retry_after: float | None = None
    ) -> None:
        self.status = status
        self.problem = problem
        #: Seconds the server asked to wait before trying again (429, 503), when it said.
        self.retry_after = retry_after
        self.code: str = str(problem.get("code") or f"http_{status}")
        detail = problem.get("detail") or problem.get("title") or ""
        super().__init__(f"{status} {self.code}: {detail}")
