"""The ``Idempotency-Key`` header, applied to a POST handler of an APIView.

A request that fails with a server error releases its key, so a retry runs again, unless a
change of the request had already committed (the failure came after the commit): then the
error is stored with the key and replayed, so a retry never makes the change twice (a second
match for a retried ``POST /matches``). Commits are noticed by a follow-up of the unit of work.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, cast

from django.db import transaction
from django.utils.translation import gettext_noop
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from core.api.schema import IDEMPOTENCY_KEY
from core.errors import ValidationFailed
from core.problems import PROBLEM_CONTENT_TYPE, problem_body
from games.services.idempotency import (
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
)
from games.services.unit_of_work import MatchChange, follow_up_register

Handler = Callable[..., Response]
_KEPT_HEADERS = ("Location",)
LOST_ANSWER = "The change was saved, but its answer was lost; read the match to see it."

#: Ids of the matches whose change committed during the current keyed request.
_commits: ContextVar[list[str] | None] = ContextVar("idempotent_commits", default=None)


def _commit_note(tx: MatchChange) -> None:
    commits = _commits.get()
    if commits is not None:
        match_id = str(tx.match.id)
        transaction.on_commit(lambda: commits.append(match_id))


follow_up_register(_commit_note)


def idempotent(handler: Handler) -> Handler:
    @functools.wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not IDEMPOTENCY_KEY.fullmatch(key):
            raise ValidationFailed(
                {
                    "Idempotency-Key": [
                        gettext_noop(
                            "Must be 1 to 255 printable ASCII characters (space to tilde)."
                        )
                    ]
                }
            )
        body = request.data  # a malformed body fails here, before the key is claimed
        record, stored = idempotency_claim(
            user=cast(User, request.user),
            method=request.method or "POST",
            path=request.path,
            key=key,
            body=body,
        )
        if stored is not None:
            return _replay(stored.status, stored.body)
        assert record is not None
        commits: list[str] = []
        token = _commits.set(commits)
        try:
            try:
                response = handler(view, request, *args, **kwargs)
            except Exception as exc:
                response = view.handle_exception(exc)  # 4xx problem, or re-raised
        except BaseException:
            # Released, unless a change committed: then the loss is stored with the key.
            idempotency_complete(
                record=record, status=500, body=_lost(commits), committed=bool(commits)
            )
            raise
        finally:
            _commits.reset(token)
        headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
        try:
            idempotency_complete(
                record=record,
                status=response.status_code,
                body={"data": response.data, "headers": headers},
                blind=getattr(response, "idempotency_blind", False),
                committed=bool(commits),
            )
        except BaseException:
            # The answer could not be stored: never leave the key "in progress".
            idempotency_release(record=record)
            raise
        return response

    # Read by the schema's check (tests/api/test_schema_agrees.py): the view takes the header.
    setattr(wrapper, "takes_idempotency_key", True)  # noqa: B010
    return wrapper


def _lost(commits: list[str]) -> dict[str, Any] | None:
    """What a retry is answered when the change committed but its answer was lost."""
    if not commits:
        return None
    body = problem_body(500, "server_error", "Server error", LOST_ANSWER)
    return {"data": body, "headers": {"Location": f"/api/v1/matches/{commits[-1]}"}}


def _replay(status: int, stored: Any) -> Response:
    content_type = PROBLEM_CONTENT_TYPE if status >= 400 else None
    return Response(
        stored["data"], status=status, headers=stored["headers"], content_type=content_type
    )
