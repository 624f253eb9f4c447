"""Idempotency-Key handling for POST requests (docs/api.md, "Conventions").

A key is scoped to (user, method, path) and kept for 24 hours. The first request claims the key
by inserting a row in its own, immediately committed statement, so a concurrent second request
finds it and is told the first is still in progress; the finished answer (2xx or 4xx; a 5xx
only when the request's change had committed before it failed) is stored and replayed for every
later request with the same body. A claim whose request never answered (the process died) is
given up after ``FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from core.errors import IdempotencyInProgress, IdempotencyKeyReused
from games.models import IdempotencyRecord
from games.services.fairness import canonical_json

#: Stored instead of a body's hash when any body replays the answer (secret moves).
ANY_BODY = "*"


@dataclass(frozen=True)
class StoredAnswer:
    status: int
    body: Any


def request_fingerprint(body: Any) -> str:
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def idempotency_claim(
    *, user: User, method: str, path: str, key: str, body: Any
) -> tuple[IdempotencyRecord | None, StoredAnswer | None]:
    """Claim ``key`` for this request, or return the stored answer of an earlier one.

    Raises IdempotencyInProgress while the earlier request runs, and IdempotencyKeyReused when
    the earlier request had a different body.
    """
    fingerprint = request_fingerprint(body)
    now = timezone.now()
    scope = {"user": user, "method": method, "path": path, "key": key}
    for _ in range(2):
        try:
            record = _insert(scope, fingerprint, now)
            return record, None
        except IntegrityError:
            existing = IdempotencyRecord.objects.filter(**scope).first()
            if existing is None:
                continue  # released by a failed first request: claim it again
            if _expired(existing, now):
                existing.delete()
                continue
            if existing.request_hash not in (fingerprint, ANY_BODY):
                raise IdempotencyKeyReused() from None
            if not existing.completed:
                raise IdempotencyInProgress() from None
            assert existing.response_status is not None
            return None, StoredAnswer(existing.response_status, existing.response_body)
    raise IdempotencyInProgress()


def _insert(scope: dict[str, Any], fingerprint: str, now: datetime) -> IdempotencyRecord:
    """One INSERT, committed at once in autocommit mode (a savepoint only inside a transaction),
    so that a concurrent request with the same key sees the claim."""
    if transaction.get_autocommit():
        return IdempotencyRecord.objects.create(**scope, request_hash=fingerprint, created_at=now)
    with transaction.atomic():
        return IdempotencyRecord.objects.create(**scope, request_hash=fingerprint, created_at=now)


def _expired(record: IdempotencyRecord, now: datetime) -> bool:
    """Past the 24 h keep, or a claim whose request died before it answered."""
    age = now - record.created_at
    if age > timedelta(seconds=settings.FACEDOWN_IDEMPOTENCY_TTL_SECONDS):
        return True
    return not record.completed and age > timedelta(
        seconds=settings.FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS
    )


def idempotency_complete(
    *,
    record: IdempotencyRecord,
    status: int,
    body: Any,
    blind: bool = False,
    committed: bool = False,
) -> None:
    """Store the answer to replay; a server error releases the key instead, unless the request
    had already ``committed`` a change: then the error is stored like any answer, so a retry
    cannot make the change a second time. ``blind``: the request carried a secret move, so the
    answer is replayed whatever a retry's body is (and the body's hash is not kept)."""
    if status >= 500 and not committed:
        idempotency_release(record=record)
        return
    record.completed = True
    record.response_status = status
    record.response_body = body
    fields = ["completed", "response_status", "response_body"]
    if blind:
        record.request_hash = ANY_BODY
        fields.append("request_hash")
    record.save(update_fields=fields)


def idempotency_release(*, record: IdempotencyRecord) -> None:
    """Give the key up: the request failed while handling it, so a retry runs afresh instead
    of meeting ``idempotency_in_progress`` until the claim is abandoned."""
    IdempotencyRecord.objects.filter(pk=record.pk, completed=False).delete()


def idempotency_purge(*, now: datetime | None = None, batch: int = 5000) -> int:
    """Delete the records past their 24 h keep (``data_purge``), in batches so no one
    statement holds many rows; returns how many went. A record past its keep is never
    replayed (``_expired``), so deleting it changes no answer."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.FACEDOWN_IDEMPOTENCY_TTL_SECONDS)
    deleted = 0
    while True:
        ids = list(
            IdempotencyRecord.objects.filter(created_at__lt=cutoff)
            .order_by("created_at")
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return deleted
        deleted += IdempotencyRecord.objects.filter(pk__in=ids).delete()[0]
