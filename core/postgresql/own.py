"""A transaction owned wholly by its caller, on Django's and psycopg's documented APIs only.

The unit of work (``games/services/unit_of_work.py``) opens one per change to a match, at two
round trips: ``BEGIN`` and the first statement (the match lock) in one psycopg pipeline
(``Connection.pipeline()``), and the change's write with the ``COMMIT`` in another. Django is
put in manual transaction management (``transaction.set_autocommit(False)``) and psycopg's
connection back in autocommit (its documented ``autocommit`` attribute): psycopg then sends no
``BEGIN`` of its own (it would wait for its answer: a third round trip), and Django knows a
transaction is open: inside it ``transaction.on_commit`` raises
``TransactionManagementError`` (Django refuses it under manual management), and a nested
``atomic`` is a savepoint of this transaction (Django's documented behaviour under manual
management; ``atomic(savepoint=False)``, as in ``bulk_create`` or ``delete``, joins it). A
``durable`` atomic is not refused there: nothing in the project opens one inside a change.
An error rolls back (``transaction.rollback()``); Django's autocommit is back on either way.

The statements run on psycopg's own cursor of the connection under Django's
(``connection.connection``), so they can ask psycopg to prepare them (``execute(…,
prepare=True)``: PostgreSQL then neither parses nor plans them again on this connection).
Django's query log and execute wrappers do not see them.

Its ``BEGIN`` carries the process's statement and lock timeouts as ``SET LOCAL``
(core/postgresql/session.py). Behind a transaction-mode pooler (``FACEDOWN_DB_POOLER``) nothing
is prepared and nothing pipelined: ``BEGIN`` with the timeouts in one simple-protocol message,
each statement in its own, ``COMMIT`` alone (two round trips more per change).

Work for after the commit goes to ``after_commit``: run once the ``COMMIT`` succeeded, outside
the lock, all inside ``core.commit_hooks.commit_hooks_context`` (one Redis write for all).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db import connections, transaction, utils

from core.commit_hooks import commit_hooks_context
from core.postgresql import session

logger = logging.getLogger(__name__)

#: Django's DB-API exception classes, most specific first (how Django wraps psycopg's).
_WRAPPED = (
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "DatabaseError",
    "InterfaceError",
    "Error",
)


def django_error(error: psycopg.Error) -> Exception:
    """``error`` as the ``django.db`` exception of the same DB-API class, as Django raises
    what its own cursors meet (callers catch ``django.db.IntegrityError`` and the like)."""
    for name in _WRAPPED:
        if isinstance(error, getattr(psycopg, name)):
            wrapped: Exception = getattr(utils, name)(*error.args)
            return wrapped
    return error


class OwnTransaction:
    """An open transaction of ``own_transaction`` (module docstring)."""

    def __init__(self, using: str) -> None:
        self.using = using
        self.begun = self.committed = False
        self._after: list[Callable[[], object]] = []
        self.prepare = session.prepare()
        self.shortcuts = session.shortcuts()

    def _raw(self) -> Any:
        # psycopg's connection under Django's: open, as set_autocommit connected it.
        return connections[self.using].connection

    def rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (``%s`` placeholders), prepared on this connection; the first
        statement goes with the ``BEGIN``."""
        raw = self._raw()
        try:
            with raw.cursor() as cursor:
                if self.begun:
                    cursor.execute(sql, params, prepare=self.prepare)
                elif self.shortcuts:
                    with raw.pipeline():
                        raw.execute("BEGIN")
                        cursor.execute(
                            session.SET_LOCAL_PIPELINED,
                            session.set_local_params(),
                            prepare=self.prepare,
                        )
                        cursor.execute(sql, params, prepare=self.prepare)
                    self.begun = True
                else:
                    raw.execute(session.first_message())
                    self.begun = True
                    cursor.execute(sql, params, prepare=self.prepare)
                found: list[tuple[Any, ...]] = cursor.fetchall()
                return found
        except psycopg.Error as error:
            raise django_error(error) from error

    def execute(self, sql: str, params: Sequence[Any]) -> None:
        """Run ``sql`` inside the open transaction (a write of a change that joined it)."""
        try:
            with self._raw().cursor() as cursor:
                cursor.execute(sql, params, prepare=self.prepare)
        except psycopg.Error as error:
            raise django_error(error) from error

    def begin(self) -> None:
        """Send ``BEGIN`` with the timeouts now (one round trip), for a block whose first
        statement is not its own (``rows`` sends the first with the ``BEGIN``)."""
        if not self.begun:
            try:
                self._raw().execute(session.first_message())
            except psycopg.Error as error:
                raise django_error(error) from error
            self.begun = True

    def commit_with(self, sql: str | None, params: Sequence[Any] = ()) -> None:
        """Send ``sql`` (when given) and ``COMMIT`` in one round trip. A failed ``sql``
        commits nothing: the server skips the rest of the pipeline, the error is raised here
        and ``own_transaction`` rolls back."""
        raw = self._raw()
        try:
            if not self.shortcuts:
                with raw.cursor() as cursor:
                    if sql is not None:
                        cursor.execute(sql, params)
                    cursor.execute("COMMIT")
            else:
                with raw.pipeline(), raw.cursor() as cursor:
                    if sql is not None:
                        cursor.execute(sql, params, prepare=self.prepare)
                    cursor.execute("COMMIT")
        except psycopg.Error as error:
            raise django_error(error) from error
        self.committed = True

    def after_commit(self, work: Callable[[], object]) -> None:
        """Run ``work()`` once this transaction has committed (never after a rollback)."""
        self._after.append(work)

    def run_after_commit(self) -> None:
        # Like Django's robust on_commit: a failing hook is logged, the others still run
        # (the change has committed; its answer must not become an error).
        with commit_hooks_context():
            for work in self._after:
                try:
                    work()
                except Exception:
                    logger.exception("after-commit work %r failed", work)
        self._after = []


@contextmanager
def own_transaction(using: str) -> Iterator[OwnTransaction]:
    """Open a transaction owned wholly by the block (module docstring); the block must end it
    with ``commit_with``. Needs Django's autocommit on (outside any ``atomic``)."""
    transaction.set_autocommit(False, using=using)
    own = OwnTransaction(using)
    try:
        own._raw().autocommit = True  # psycopg: no BEGIN of its own (module docstring)
        yield own
        if own.begun and not own.committed:
            own.commit_with(None)
    except BaseException:
        if own.begun and not own.committed:
            _rollback(using)
        raise
    finally:
        _autocommit_back(using)
    own.run_after_commit()


def _rollback(using: str) -> None:
    try:
        transaction.rollback(using=using)
    except Exception:  # the connection broke: closing it ends the transaction too
        logger.warning("rollback failed; closing the connection", exc_info=True)
        connections[using].close()


def _autocommit_back(using: str) -> None:
    try:
        transaction.set_autocommit(True, using=using)
    except Exception:
        logger.warning("autocommit could not be restored; closing the connection", exc_info=True)
        connections[using].close()
