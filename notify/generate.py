"""Notifications computed from a committed change to a match.

Registered as a unit-of-work follow-up: ``notifications_of(tx)`` reads only what the change
holds in memory (the events it emitted, the match and seat rows it locked), so it adds no query
inside the locked transaction; the batch goes to the channels once the change has committed.

- ``invited``: the match was created with a seat for another user (not the creator).
- ``match_started``: every seated user, when the match started in this change.
- ``your_move``: a step or a reveal phase opened in this change and waits for the user's seat
  (a human-controlled seat that has not forfeited nor submitted yet).
- ``step_resolved``: every seated user, when steps resolved in this change (the last one).
- ``match_finished``: every seated user, when the match finished or was aborted.
- ``proposal``: every other seated user, when a pause or an abort was proposed.
- ``proposal_answered``: the proposer, when their proposal was declined or took effect.
- ``seat_offered``: the invitee of a seat offered to a substitute. They hold no seat, so their
  account is read after the commit, outside the lock (``seat_offers_send``).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction

from games import events
from games.models import Match, MatchEvent, Seat, SeatOffer
from games.services.clocks_shown import seat_deadline
from games.services.unit_of_work import MatchChange, follow_up_register
from notify.dispatch import notifications_send
from notify.kinds import Kind, Notification


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _by_type(tx: MatchChange) -> dict[str, list[MatchEvent]]:
    found: dict[str, list[MatchEvent]] = {}
    for event in tx.events:
        found.setdefault(event.type, []).append(event)
    return found


def notifications_of(tx: MatchChange) -> list[Notification]:
    """What the users seated in ``tx.match`` must hear about this change (module docstring)."""
    emitted = _by_type(tx)
    if not emitted:
        return []
    match = tx.match
    humans = [seat for seat in tx.seats if seat.user_id is not None]
    found: list[Notification] = []

    def add(kind: Kind, seat: Seat, /, **data: Any) -> None:
        assert seat.user_id is not None
        found.append(
            Notification(
                id=f"{kind}:{match.pk}:{match.version}:{seat.user_id}",
                user_id=seat.user_id,
                type=kind,
                match_id=str(match.pk),
                at=tx.now,
                data={"game": match.game, **data},
                # From the lock's read of the user row; unknown (None or absent) for a seat
                # taken in this change or built in memory: then the job goes out.
                offsite=getattr(seat, "user_offsite", None) is not False,
            )
        )

    if created := emitted.get(events.MATCH_CREATED.name):
        seats_public = (created[0].data or {}).get("seats", [])
        creator = next(
            (s for s in humans if s.user_id == match.created_by_id and s.index < len(seats_public)),
            None,
        )
        by = seats_public[creator.index]["player"] if creator is not None else None
        for seat in humans:
            if seat.invited and not seat.accepted and seat.user_id != match.created_by_id:
                add("invited", seat, by=by)
    if events.MATCH_STARTED.name in emitted:
        for seat in humans:
            add("match_started", seat, step=match.step)
    if resolved := emitted.get(events.STEP_RESOLVED.name):
        last = max(event.step or 0 for event in resolved)
        for seat in humans:
            add("step_resolved", seat, step=last)
    if events.STEP_OPENED.name in emitted and match.status == Match.Status.ACTIVE:
        waiting = match.acting_mask & ~match.submitted_mask
        for seat in humans:
            if (
                waiting >> seat.index & 1
                and not seat.forfeited
                and seat.controlled_by == Seat.Controller.PLAYER
            ):
                add(
                    "your_move",
                    seat,
                    step=match.step,
                    phase=match.phase_kind,
                    deadline=_iso(seat_deadline(match, seat.index)),
                )
    for event in emitted.get(events.AUTO_VACATION.name, []):
        seat_index = (event.data or {}).get("seat")
        for seat in humans:
            if seat.index == seat_index:
                add("auto_vacation", seat, until=(event.data or {}).get("until"))
    for made in emitted.get(events.PROPOSAL_MADE.name, []):
        proposed = made.data or {}
        for seat in humans:
            if seat.index != proposed["seat"] and not seat.forfeited:
                add(
                    "proposal",
                    seat,
                    step=match.step,
                    proposal=proposed["proposal"],
                    kind=proposed["kind"],
                    until=proposed["until"],
                )
    for answered in emitted.get(events.PROPOSAL_ANSWERED.name, []):
        data = answered.data or {}
        if data["status"] not in ("accepted", "declined"):
            continue  # still open, or withdrawn by the proposer: nothing to tell them
        proposer = next((s for s in tx.seats if s.index == data["proposer"]), None)
        if proposer is not None and proposer.user_id is not None:
            add(
                "proposal_answered",
                proposer,
                step=match.step,
                proposal=data["proposal"],
                kind=data["kind"],
                answer=data["status"],
            )
    ended = emitted.get(events.MATCH_FINISHED.name) or emitted.get(events.MATCH_ABORTED.name)
    if ended:
        outcome = "aborted" if match.status == Match.Status.ABORTED else "finished"
        for seat in humans:
            add("match_finished", seat, step=ended[-1].step, outcome=outcome)
    return found


def notifications_follow_up(tx: MatchChange) -> None:
    """The unit-of-work follow-up: compute now (in memory), send once committed."""
    found = notifications_of(tx)
    if found:
        transaction.on_commit(partial(notifications_send, found), robust=True)
    offered = [
        dict(event.data or {})
        for event in tx.events
        if event.type == events.SEAT_OFFERED.name and (event.data or {}).get("invitee")
    ]
    if offered:
        match = tx.match
        at, version = tx.now, match.version
        send = partial(seat_offers_send, str(match.pk), match.game, version, at, offered)
        transaction.on_commit(send, robust=True)


def seat_offers_send(
    match_id: str, game: str, version: int, at: datetime, offered: list[dict[str, Any]]
) -> None:
    """Tell each invitee of a seat offer (after the commit: one read of their accounts and
    of the offers' authors)."""
    ids = [data["offer"] for data in offered]
    offers = SeatOffer.objects.filter(pk__in=ids).select_related("invitee", "offered_by")
    found = [
        Notification(
            id=f"seat_offered:{match_id}:{version}:{offer.invitee_id}",
            user_id=offer.invitee_id,
            type="seat_offered",
            match_id=match_id,
            at=at,
            data={
                "game": game,
                "offer": offer.pk,
                "seat": offer.seat,
                "by": offer.offered_by.username,
            },
            offsite=offer.invitee.offsite_channels,
        )
        for offer in offers
        if offer.invitee is not None and offer.invitee_id is not None
    ]
    notifications_send(found)


follow_up_register(notifications_follow_up)
