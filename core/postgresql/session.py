"""What a process asks of its PostgreSQL sessions, in a way a transaction-mode pooler keeps.

Timeouts. A web request and a Celery task each get a ``statement_timeout`` and a
``lock_timeout`` of their own (``FACEDOWN_WEB_*`` and ``FACEDOWN_WORKER_*`` settings): a stuck
query or a lock held by another session fails with an ``OperationalError`` (a web request is
answered ``503 service_unavailable`` with ``Retry-After``, a task retries) instead of hanging.
They are never startup options (PgBouncer refuses the ``options`` parameter) nor a session's
``SET`` (a pooler hands the session on): every transaction of the unit of work sends them as
``SET LOCAL`` in its first message (``first_message``, core/postgresql/own.py), and the role a
process connects as carries them as its defaults for every other statement
(``ALTER ROLE … SET``: ``manage.py database_role_timeouts``, docs/deployment.md).

The pooler. ``FACEDOWN_DB_POOLER=transaction`` turns off what needs a session of one's own:
prepared statements (``prepare``) and the unit of work's pipelined shortcuts (``shortcuts``:
``BEGIN`` with the match lock in one round trip, the write with the ``COMMIT`` in another).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.conf import settings

Kind = Literal["web", "worker"]

_kind: list[Kind] = ["web"]


def use(kind: Kind) -> None:
    """This process's sessions are ``kind``'s from now on (a Celery worker says so at start)."""
    _kind[0] = kind


def kind() -> Kind:
    return _kind[0]


@dataclass(frozen=True)
class Timeouts:
    statement_ms: int
    lock_ms: int


def timeouts(of: Kind | None = None) -> Timeouts:
    """The timeouts of ``of`` (default: this process's kind); 0 is no limit."""
    if (of or kind()) == "worker":
        return Timeouts(
            settings.FACEDOWN_WORKER_STATEMENT_TIMEOUT_MS, settings.FACEDOWN_WORKER_LOCK_TIMEOUT_MS
        )
    return Timeouts(
        settings.FACEDOWN_WEB_STATEMENT_TIMEOUT_MS, settings.FACEDOWN_WEB_LOCK_TIMEOUT_MS
    )


def set_local(limits: Timeouts) -> str:
    """``SET LOCAL`` of both limits, integers only (no parameter: it joins ``BEGIN`` in one
    simple-protocol message)."""
    return (
        f"SET LOCAL statement_timeout = {int(limits.statement_ms)};"
        f" SET LOCAL lock_timeout = {int(limits.lock_ms)}"
    )


def first_message() -> str:
    """``BEGIN`` and this process's timeouts, as one message (one round trip)."""
    return f"BEGIN; {set_local(timeouts())}"


#: The same limits as one statement with parameters, for a pipeline (which speaks the extended
#: protocol: one statement per message); ``set_config(…, true)`` is ``SET LOCAL``.
SET_LOCAL_PIPELINED = (
    "SELECT set_config('statement_timeout', %s, true), set_config('lock_timeout', %s, true)"
)


def set_local_params() -> tuple[str, str]:
    limits = timeouts()
    return str(int(limits.statement_ms)), str(int(limits.lock_ms))


def behind_pooler() -> bool:
    return bool(settings.FACEDOWN_DB_POOLER)


def prepare() -> bool:
    """Whether the unit of work's statements are prepared (never behind a pooler)."""
    options = settings.DATABASES["default"].get("OPTIONS", {})
    return not behind_pooler() and options.get("prepare_threshold") is not None


def shortcuts() -> bool:
    """Whether the unit of work pipelines ``BEGIN`` with the lock and the write with the
    ``COMMIT`` (never behind a pooler)."""
    return not behind_pooler()


def role_defaults(of: Kind) -> list[tuple[str, int]]:
    """(setting, value) pairs ``database_role_timeouts`` makes a role's defaults."""
    limits = timeouts(of)
    return [("statement_timeout", limits.statement_ms), ("lock_timeout", limits.lock_ms)]
