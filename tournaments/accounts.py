"""The tournaments' part in closing an account (``accounts.hooks``): its entries and the
tournaments it organises (docs/api.md, "Closing an account")."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from accounts.models import User
from core.errors import NotInvited, NotRegistered, TournamentNotOpen
from tournaments.models import Entry, Tournament
from tournaments.services.entries import tournament_decline, tournament_withdraw
from tournaments.services.lifecycle import tournament_end, tournament_resume

_LIVE = (Tournament.Status.REGISTERING, Tournament.Status.RUNNING, Tournament.Status.PAUSED)


def entries_withdraw(user: User) -> None:
    """It withdraws from every tournament it entered, as a player who withdraws: before the
    start its place is freed; once running, its matches go on with the stand-in bot."""
    entries = Entry.objects.filter(
        user=user, joined=True, status=Entry.Status.ACTIVE, tournament__status__in=_LIVE
    )
    for tournament_id in entries.values_list("tournament_id", flat=True).order_by("pk"):
        with contextlib.suppress(NotRegistered, TournamentNotOpen):  # left or ended meanwhile
            tournament_withdraw(tournament_id=tournament_id, user=user)


def invitations_decline(user: User) -> None:
    """Invitations it never answered are declined, as the invitee would (the organiser sees
    the ``declined`` event), so no entry of a closed account waits to be joined."""
    invitations = Entry.objects.filter(
        user=user, invited=True, joined=False, tournament__status__in=_LIVE
    )
    for tournament_id in invitations.values_list("tournament_id", flat=True).order_by("pk"):
        with contextlib.suppress(NotInvited):  # answered meanwhile
            tournament_decline(tournament_id=tournament_id, user=user)


def organised_close(user: User) -> None:
    """Tournaments it organises: one in registration is cancelled (its entrants and invitees
    hear of it); a paused one resumes, since nobody else would resume it; a running one runs
    on to its end by itself, with no organiser (staff keep the organiser's actions)."""
    organised = Tournament.objects.filter(organiser=user)
    registering = organised.filter(status=Tournament.Status.REGISTERING)
    for tournament_id in registering.values_list("pk", flat=True).order_by("pk"):
        with contextlib.suppress(TournamentNotOpen):
            tournament_end(tournament_id=tournament_id, by=user)
    paused = organised.filter(status=Tournament.Status.PAUSED)
    for tournament_id in paused.values_list("pk", flat=True).order_by("pk"):
        with contextlib.suppress(TournamentNotOpen):
            tournament_resume(tournament_id=tournament_id, by=user)


#: What a closing account leaves open here, closed in this order, one function per kind.
CLOSERS: tuple[Callable[[User], None], ...] = (
    entries_withdraw,
    invitations_decline,
    organised_close,
)


def player_close(user: User) -> None:
    for close in CLOSERS:
        close(user)


def player_export(user: User) -> dict[str, object]:
    """Nothing of its own beyond what the games export (its tournament matches)."""
    return {}
