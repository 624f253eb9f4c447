"""The audit transcript of a match that is over (docs/api.md, "Audit"; docs/fairness.md).

A ``facedown-transcript-v1`` transcript holds everything ``games.verify`` needs to recompute the
deal and replay every move without the database: the seed and client seeds, every move with
its salts and receipts, every event unredacted, the public keys that signed the receipts.

Everything is shown once the match is over. A future game with moves the rules never reveal
(Xato's life cards) will need this builder to withhold them, and the verifier to check them
by commitment only.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils.timezone import now
from django.utils.translation import gettext_noop

from core.errors import MatchNotFinished, NotFound
from core.text import Text, status_word
from games.catalog import get_engine
from games.events import AUDITOR, event_for, timestamp
from games.models import Match, MatchEvent, Move, Seat
from games.routers import from_replica, primary_reads
from games.services.archive import history_events, history_moves
from games.services.substitutes import tenures_of
from games.signing import public_keys

FORMAT = "facedown-transcript-v1"


def _seat(seat: Seat) -> dict[str, Any]:
    return {
        "index": seat.index,
        "player": seat.user.username if seat.user is not None else None,
        "bot": seat.bot or None,
        "bot_options": seat.bot_options or None,
        "accepted": seat.accepted,
        "forfeited": seat.forfeited,
        "controlled_by": seat.controlled_by,
        "client_seed": seat.client_seed or None,
    }


def _steps(moves: list[Move], players: int) -> list[dict[str, Any]]:
    by_step: dict[int, dict[int, Move]] = defaultdict(dict)
    for move in moves:
        by_step[move.step][move.seat] = move
    steps = []
    for number in sorted(by_step):
        row = by_step[number]

        def column(attribute: str, row: dict[int, Move] = row) -> list[Any]:
            return [
                (getattr(row[s], attribute) or None) if s in row else None for s in range(players)
            ]

        steps.append(
            {
                "step": number,
                "commitments": column("commitment"),
                "moves": [row[s].payload if s in row else None for s in range(players)],
                "salts": column("salt"),
                "receipts": [_receipts(row.get(s)) for s in range(players)],
                "receipt_salts": [_receipt_salts(row.get(s)) for s in range(players)],
                "sources": column("source"),
            }
        )
    return steps


def _receipts(move: Move | None) -> Any:
    """One receipt, or under commit-reveal the commitment's and the reveal's."""
    if move is None:
        return None
    if move.reveal_receipt is not None:
        return [move.receipt, move.reveal_receipt]
    return move.receipt


def _receipt_salts(move: Move | None) -> Any:
    if move is None:
        return None
    if move.reveal_receipt is not None:
        return [move.receipt_salt, move.reveal_receipt_salt]
    return move.receipt_salt or None


def audit_transcript(*, match_id: uuid.UUID | str) -> dict[str, Any]:
    """The match's transcript; 409 ``match_not_finished`` unless it is finished or aborted.

    A match over for more than ``FACEDOWN_REPLICA_MIN_AGE_SECONDS`` is read from the read
    replica when there is one (games/routers.py); when the replica does not have the match,
    or not all of its events yet, everything is read again from the primary."""
    read = from_replica(lambda: _history(match_id, settled=True))
    if read is not None:
        return _transcript(*read)
    with primary_reads():
        read = _history(match_id, settled=False)
    assert read is not None
    return _transcript(*read)


def _history(
    match_id: uuid.UUID | str, *, settled: bool
) -> tuple[Match, list[Seat], list[Move], list[MatchEvent]] | None:
    """The match with its seats, moves and events, all from the current read alias. With
    ``settled``, None unless the match has been over long enough and every event was read."""
    match = Match.objects.filter(pk=match_id).defer("state").first()
    if match is None:
        if settled:
            return None
        raise NotFound(gettext_noop("No match with this id."))
    if settled:
        age = timedelta(seconds=settings.FACEDOWN_REPLICA_MIN_AGE_SECONDS)
        if not match.is_over or match.finished_at is None or match.finished_at > now() - age:
            return None
    if not match.is_over:
        raise MatchNotFinished(
            Text(
                gettext_noop("The match is %(status)s: its transcript comes at the end."),
                status=status_word(match.status),
            )
        )
    seats = list(Seat.objects.filter(match=match).select_related("user").order_by("index"))
    # From the hot tables, or rebuilt from the match's archive (games/services/archive.py).
    moves = history_moves(match)
    events = history_events(match)
    if settled and (len(events) != match.last_seq or not seats):
        return None  # the replica lags behind: read the primary instead
    return match, seats, moves, events


def _transcript(
    match: Match, seats: list[Seat], moves: list[Move], events: list[MatchEvent]
) -> dict[str, Any]:
    engine = get_engine(match.game)
    assert engine is not None, f"unknown game {match.game!r}"
    steps = _steps(moves, len(seats))

    keys = public_keys()
    used = [
        str(receipt["key_id"])
        for step in steps
        for entry in step["receipts"]
        # one receipt, or under commit-reveal the commitment's and the reveal's
        for receipt in (entry if isinstance(entry, list) else [entry])
        if isinstance(receipt, dict) and receipt.get("key_id")
    ]
    # The key of the match's receipts (the latest, should a rotation fall mid-match); each
    # receipt names its own key_id, and public_keys holds every one of them.
    key_id = used[-1] if used else next(iter(keys))
    return {
        "format": FORMAT,
        "match": str(match.id),
        "game": match.game,
        "options": match.options,
        "protocol": match.protocol,
        "disclose_submitted": match.disclose_submitted,
        "status": match.status,
        "seats": [_seat(seat) for seat in seats],
        "rules_version": engine.rules_version,
        "seed": match.seed,
        "seed_sha256": match.seed_sha256,
        "client_seeds": [seat.client_seed or None for seat in seats],
        "key_id": key_id,
        "public_keys": {k: keys[k] for k in sorted({*used, key_id}) if k in keys},
        "steps": steps,
        "events": [event_for(event, AUDITOR) for event in events],
        # who played which steps of a seat that changed hands, from the current alias too
        "tenures": tenures_of(match),
        "result": match.result,
        "created_at": timestamp(match.created_at),
        "started_at": timestamp(match.started_at),
        "finished_at": timestamp(match.finished_at),
    }
