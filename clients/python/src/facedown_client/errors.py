"""The errors a refused request raises: the server's problem+json, with its stable ``code``.

Every error is an ``ApiError`` (and a ``FacedownError``); a family of answers has its own
subclass, so a bot catches what it can handle and lets the rest through::

    try:
        client.challenges.accept(challenge_id)
    except Conflict:  # 409: answered or canceled meanwhile
        pass
"""

from __future__ import annotations

from typing import Any


class FacedownError(Exception):
    """Base of every error this package raises."""


class ApiError(FacedownError):
    """A 4xx or 5xx answer. ``code`` is the server's stable error code (``illegal_move``,
    ``stale_step``, …; docs/api.md lists them), ``problem`` the whole problem+json body,
    ``errors`` its field messages (``{"to": ["This field may not be null."]}``).

    ``str()`` says it all: status, code, title, detail and each field's messages."""

    def __init__(
        self, status: int, problem: dict[str, Any], retry_after: float | None = None
    ) -> None:
        self.status = status
        self.problem = problem
        #: Seconds the server asked to wait before trying again (429, 503), when it said.
        self.retry_after = retry_after
        self.code: str = str(problem.get("code") or f"http_{status}")
        self.title: str = str(problem.get("title") or "")
        self.detail: str = str(problem.get("detail") or "")
        errors = problem.get("errors")
        self.errors: dict[str, Any] = errors if isinstance(errors, dict) else {}
        super().__init__(self._describe())

    def _describe(self) -> str:
        parts = [f"{self.status} {self.code}"]
        said = [text for text in (self.title, self.detail) if text]
        if len(said) == 2 and said[0].rstrip(".") == said[1].rstrip("."):
            said = said[1:]
        if said:
            parts.append(
                ": " + " ".join(text if text.endswith(".") else text + "." for text in said)
            )
        fields = [f"{name}: {_messages(messages)}" for name, messages in self.errors.items()]
        if fields:
            parts.append(" [" + "; ".join(fields) + "]")
        if self.retry_after is not None:
            parts.append(f" (retry after {self.retry_after:g} s)")
        return "".join(parts)


def _messages(messages: Any) -> str:
    if isinstance(messages, list):
        return " ".join(_messages(message) for message in messages)
    if isinstance(messages, dict):
        return "; ".join(f"{key}: {_messages(value)}" for key, value in messages.items())
    return str(messages)


class BadRequest(ApiError):
    """400: invalid fields (``errors``), an illegal move, a stale step, …"""


class NotAuthenticated(ApiError):
    """401: no token, or one that was revoked or expired."""


class Forbidden(ApiError):
    """403: not yours to do (not seated, not a party, a refused invitation, …)."""


class ScopeRefused(Forbidden):
    """403 ``insufficient_scope``: the token lacks the route's scope (docs/programs.md)."""


class NotFound(ApiError):
    """404: no such match, challenge, token, … (or not visible to you)."""


class Conflict(ApiError):
    """409: the thing moved on (a challenge answered, a match started or over, …)."""


class Gone(ApiError):
    """410: the thing is gone for good."""


class Throttled(ApiError):
    """429: too many requests; ``retry_after`` seconds is how long the server asked to wait."""


class ServerError(ApiError):
    """5xx: the server failed or is briefly away (503); worth trying again later."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: NotAuthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    429: Throttled,
}


def error_for(status: int, problem: dict[str, Any], retry_after: float | None = None) -> ApiError:
    """The ``ApiError`` subclass of this answer's family."""
    if status == 403 and problem.get("code") == "insufficient_scope":
        return ScopeRefused(status, problem, retry_after)
    kind = _BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return kind(status, problem, retry_after)
