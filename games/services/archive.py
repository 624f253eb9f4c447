"""Retention: a finished match's moves and events leave the hot tables for its archive.

After ``FACEDOWN_ARCHIVE_AFTER_DAYS`` a match that is over keeps its match and seat rows, and
its moves and events move into one ``MatchArchive`` row: zlib-compressed JSON holding every
column of every row but its id (``facedown-archive-v1``, docs/data.md). Readers ask
``history_events`` / ``history_moves`` (or fall back to them when the hot tables hold nothing
for a match that is over), which rebuild the very rows from the archive, so every read of an
archived match (the match, its events page by page and per reader, the audit transcript and
its verification, the operator console) answers exactly as before.

The archive is written under the match's lock (``locks.match_lock_with_seats``), in one
transaction with the deletion of the hot rows: a reader sees either the rows or the archive,
never neither. This module is the one other writer of moves and events besides the unit of
work (tests/architecture/test_write_path.py lists it): it only ever moves rows of a match
that is over, which no change can touch any more.
"""

from __future__ import annotations

import json
import logging
import uuid
import zlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import models, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.locks import match_lock_with_seats
from games.models import Match, MatchArchive, MatchEvent, Move

log = logging.getLogger(__name__)

FORMAT = "facedown-archive-v1"
OVER = (Match.Status.FINISHED, Match.Status.ABORTED)

R = TypeVar("R", MatchEvent, Move)


def _columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.attname != "match_id"]


def _row_dump(row: models.Model) -> dict[str, Any]:
    values = {}
    for field in _columns(type(row)):
        value = getattr(row, field.attname)
        values[field.attname] = value.isoformat() if isinstance(value, datetime) else value
    return values


def _row_load(model: type[R], match_id: uuid.UUID, values: dict[str, Any]) -> R:
    row = model(match_id=match_id)
    for field in _columns(model):
        value = values[field.attname]
        if isinstance(field, models.DateTimeField) and value is not None:
            value = datetime.fromisoformat(value)
        setattr(row, field.attname, value)
    return row


def _pack(document: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)


def _unpack(archive: MatchArchive) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(zlib.decompress(bytes(archive.transcript)))
    if document.get("format") != FORMAT:
        raise ValueError(f"archive of {archive.match_id}: unknown format {document.get('format')}")
    return document


def archive_cutoff(now: datetime | None = None) -> datetime:
    days: float = settings.FACEDOWN_ARCHIVE_AFTER_DAYS
    return (now or timezone.now()) - timedelta(days=days)


def match_archive(*, match_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """Archive one match that has been over since before the cutoff; returns whether it did.
    Idempotent: a match that is live, too recent or already archived is left alone."""
    cutoff = archive_cutoff(now)
    with transaction.atomic():
        match, _ = match_lock_with_seats(match_id)
        if match.status not in OVER or match.finished_at is None or match.finished_at > cutoff:
            return False
        if MatchArchive.objects.filter(match=match).exists():
            return False
        moves = list(Move.objects.filter(match=match).order_by("step", "seat"))
        events = list(MatchEvent.objects.filter(match=match).order_by("seq"))
        document = {
            "format": FORMAT,
            "match": str(match.pk),
            "moves": [_row_dump(move) for move in moves],
            "events": [_row_dump(event) for event in events],
        }
        MatchArchive.objects.create(
            match=match,
            format=FORMAT,
            moves=len(moves),
            events=len(events),
            transcript=_pack(document),
            archived_at=timezone.now(),
        )
        Move.objects.filter(match=match).delete()
        MatchEvent.objects.filter(match=match).delete()
    return True


def archive_due(*, now: datetime | None = None, limit: int = 200) -> list[uuid.UUID]:
    """Matches over since before the cutoff and not archived yet, oldest first."""
    archived = MatchArchive.objects.filter(match=OuterRef("pk"))
    return list(
        Match.objects.filter(status__in=OVER, finished_at__lte=archive_cutoff(now))
        .filter(~Exists(archived))
        .order_by("finished_at")
        .values_list("id", flat=True)[:limit]
    )


def archive_sweep(*, now: datetime | None = None, limit: int = 200) -> int:
    """Archive up to ``limit`` matches that are due; returns how many were archived."""
    archived = 0
    for match_id in archive_due(now=now, limit=limit):
        try:  # one broken match must not stop the others
            archived += match_archive(match_id=match_id, now=now)
        except Exception:
            log.exception("archiving match %s failed", match_id)
    return archived


def _archived(match_id: Any) -> dict[str, Any] | None:
    archive = MatchArchive.objects.filter(match_id=match_id).first()
    return _unpack(archive) if archive is not None else None


def archived_events(match: Match) -> list[MatchEvent] | None:
    """The match's events rebuilt from its archive, in ``seq`` order; None if not archived."""
    document = _archived(match.pk)
    if document is None:
        return None
    return [_row_load(MatchEvent, match.pk, values) for values in document["events"]]


def archived_moves(match: Match) -> list[Move] | None:
    """The match's moves rebuilt from its archive, by step and seat; None if not archived."""
    document = _archived(match.pk)
    if document is None:
        return None
    return [_row_load(Move, match.pk, values) for values in document["moves"]]


def history_events(match: Match) -> list[MatchEvent]:
    """Every event of the match in ``seq`` order, from the hot table or from its archive."""
    rows = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    if rows or match.status not in OVER:
        return rows
    return archived_events(match) or []


def history_moves(match: Match) -> list[Move]:
    """Every move of the match by step and seat, from the hot table or from its archive."""
    rows = list(Move.objects.filter(match=match).order_by("step", "seat"))
    if rows or match.status not in OVER:
        return rows
    return archived_moves(match) or []


def archived_event_data_rewrite(
    *, match_id: uuid.UUID | str, rewrite: Callable[[Any], Any]
) -> bool:
    """Erasure in an archive (a closed account's name): ``rewrite(data)`` replaces each
    event's public data, as ``MatchChange.rewrite_event_data`` does for the hot rows.
    Returns whether anything changed."""
    with transaction.atomic():
        match, _ = match_lock_with_seats(match_id)
        archive = MatchArchive.objects.filter(match=match).first()
        if archive is None:
            return False
        document = _unpack(archive)
        changed = False
        for event in document["events"]:
            if event["data"] is not None and (data := rewrite(event["data"])) != event["data"]:
                event["data"], changed = data, True
        if changed:
            MatchArchive.objects.filter(match=match).update(transcript=_pack(document))
    return changed
