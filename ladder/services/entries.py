"""Entering, changing, leaving and resuming a ladder entry: always the entrant's own act.

An entry is a standing consent to be paired on that game's ladder, under what it declares
(table sizes, option objects, time controls, matches at once), until its entrant leaves. A
pairing is not an invitation: it passes no invitation budget.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from cardgames.engines.protocol import InvalidOptions
from core.errors import LadderEntriesExhausted, LadderEntryNotPaused, NotOnLadder, ValidationFailed
from core.text import Text
from games.catalog import get_engine
from games.services.deadlines import time_control_validate
from games.services.ratings import DEFAULT_MU, DEFAULT_SIGMA
from ladder.models import LadderEntry

MSG_UNKNOWN_GAME = gettext_noop("Unknown game.")
MSG_LIST = gettext_noop("A non-empty list.")
MSG_TIMED = gettext_noop("Ladder matches are timed: a time control, not null.")
#: What an entry accepts unless it says: a minute a step, the stand-in moving for a late seat.
DEFAULT_TIME_CONTROL = {"kind": "per_step", "per_step_seconds": 60, "on_timeout": "auto_move"}


def _seats(raw: Any, game: str) -> list[int]:
    engine = get_engine(game)
    assert engine is not None
    if raw is None:
        return [engine.min_players]
    if not isinstance(raw, list) or not raw or not all(type(n) is int for n in raw):
        raise ValidationFailed({"seats": [MSG_LIST]})
    bad = [n for n in raw if not engine.min_players <= n <= engine.max_players]
    if bad:
        message = Text(
            gettext_noop("Between %(low)s and %(high)s."),
            low=engine.min_players,
            high=engine.max_players,
        )
        raise ValidationFailed({"seats": [message]})
    return sorted(set(raw))


def _options(raw: Any, game: str, seats: list[int]) -> list[dict[str, Any]]:
    """Each object as given, once the engine accepted it for every table size declared."""
    engine = get_engine(game)
    assert engine is not None
    if raw is None:
        raw = [{}]
    if not isinstance(raw, list) or not raw or not all(isinstance(o, dict) for o in raw):
        raise ValidationFailed({"options": [MSG_LIST]})
    for index, options in enumerate(raw):
        for n in seats:
            try:
                engine.validate_options(options, n)
            except InvalidOptions as exc:
                errors = {
                    f"options.{index}.{k.removeprefix('options.')}": v
                    for k, v in exc.errors.items()
                }
                raise ValidationFailed(errors) from exc
    unique = {repr(sorted(o.items())): o for o in raw}
    return list(unique.values())


def _time_controls(raw: Any, game: str) -> list[dict[str, Any] | None]:
    """Each as games fills it. Ladder matches are timed: an untimed one whose program stopped
    would hold its opponent's place (``max_concurrent``) for ever."""
    if raw is None:
        raw = [DEFAULT_TIME_CONTROL]
    if not isinstance(raw, list) or not raw:
        raise ValidationFailed({"time_controls": [MSG_LIST]})
    found: list[dict[str, Any] | None] = []
    for index, control in enumerate(raw):
        if control is None:
            raise ValidationFailed({f"time_controls.{index}": [MSG_TIMED]})
        try:
            checked = time_control_validate(control, game=game)
        except ValidationFailed as exc:
            messages = [m for found in exc.extra["errors"].values() for m in found]
            errors = {f"time_controls.{index}": messages}
            raise ValidationFailed(errors) from exc
        if checked not in found:
            found.append(checked)
    return found


def _max_concurrent(raw: Any) -> int:
    cap = int(settings.FACEDOWN_LADDER_MAX_CONCURRENT)
    if raw is None:
        return 1
    if type(raw) is not int or not 1 <= raw <= cap:
        message = Text(gettext_noop("Between %(low)s and %(high)s."), low=1, high=cap)
        raise ValidationFailed({"max_concurrent": [message]})
    return raw


def entry_set(
    *,
    user: User,
    game: str,
    seats: Any = None,
    options: Any = None,
    time_controls: Any = None,
    max_concurrent: Any = None,
    now: datetime | None = None,
) -> tuple[LadderEntry, bool]:
    """Enter ``game``'s ladder, or change what the entry accepts: (the entry, whether it is
    new or came back after leaving). A paused entry stays paused (``entry_resume``)."""
    now = now or timezone.now()
    if get_engine(game) is None:
        raise ValidationFailed({"game": [MSG_UNKNOWN_GAME]})
    play_allowed_check(user, now=now)
    declared = _seats(seats, game)
    fields = {
        "seats": declared,
        "options": _options(options, game, declared),
        "time_controls": _time_controls(time_controls, game),
        "max_concurrent": _max_concurrent(max_concurrent),
    }
    with transaction.atomic():
        # The account's row serialises its entries: the cap is counted once.
        User.objects.select_for_update().filter(pk=user.pk).first()
        entry = LadderEntry.objects.select_for_update().filter(user=user, game=game).first()
        returning = entry is None or entry.status == LadderEntry.Status.LEFT
        if returning:
            held = LadderEntry.objects.filter(user=user).exclude(status=LadderEntry.Status.LEFT)
            if held.count() >= int(settings.FACEDOWN_LADDER_MAX_ENTRIES):
                raise LadderEntriesExhausted(limit=settings.FACEDOWN_LADDER_MAX_ENTRIES)
        if entry is None:
            entry = LadderEntry(
                user=user, game=game, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, entered_at=now
            )
        elif returning:
            entry.status, entry.entered_at, entry.left_at = LadderEntry.Status.ACTIVE, now, None
        for name, value in fields.items():
            setattr(entry, name, value)
        entry.save()
    return entry, returning


def entry_of(*, user: User, game: str) -> LadderEntry:
    entry = LadderEntry.objects.filter(user=user, game=game).first()
    if entry is None:
        raise NotOnLadder()
    return entry


def entry_leave(*, user: User, game: str, now: datetime | None = None) -> LadderEntry:
    """Leave: not paired again (matches already started are played out and rated); the
    rating is kept for a return."""
    with transaction.atomic():
        entry = LadderEntry.objects.select_for_update().filter(user=user, game=game).first()
        if entry is None or entry.status == LadderEntry.Status.LEFT:
            raise NotOnLadder()
        entry.status, entry.left_at = LadderEntry.Status.LEFT, now or timezone.now()
        entry.paused_reason, entry.paused_at = "", None
        entry.save(update_fields=["status", "left_at", "paused_reason", "paused_at"])
    return entry


def entry_resume(*, user: User, game: str) -> LadderEntry:
    """The entrant's own act after a pause: paired again, its strikes forgotten."""
    play_allowed_check(user)
    with transaction.atomic():
        entry = LadderEntry.objects.select_for_update().filter(user=user, game=game).first()
        if entry is None or entry.status == LadderEntry.Status.LEFT:
            raise NotOnLadder()
        if entry.status != LadderEntry.Status.PAUSED:
            raise LadderEntryNotPaused()
        entry.status, entry.strikes = LadderEntry.Status.ACTIVE, 0
        entry.paused_reason, entry.paused_at = "", None
        entry.save(update_fields=["status", "strikes", "paused_reason", "paused_at"])
    return entry
