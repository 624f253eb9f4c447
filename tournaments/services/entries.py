"""Entering and leaving: join, withdraw, the organiser's invitation (also of a late player)
and its refusal, and disqualification. Only the player enters themselves. Each under the
tournament row's lock, so the last place is taken once."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from core.errors import (
    AlreadyInvited,
    AlreadyRegistered,
    EntryRefused,
    NotFound,
    NotInvited,
    NotRegistered,
    PermissionDenied,
    TournamentFull,
    TournamentNotOpen,
)
from games.models import Rating
from games.services.consent import invitations_allow
from games.services.rating_scale import from_ordinal
from games.services.ratings import DEFAULT_MU, DEFAULT_SIGMA, ordinal
from tournaments.locks import tournament_lock
from tournaments.models import Entry, Tournament
from tournaments.services.announce import Announcements
from tournaments.services.log import event_add
from tournaments.services.seat_handover import absent_handed_over

#: Every ``why_not`` a player may be told (docs/api.md, "Tournaments").
WHY_NOT = (
    "not_registering",
    "registration_not_open",
    "registration_closed",
    "invitation_only",
    "rating_too_low",
    "rating_too_high",
    "too_few_rated_games",
    "account_too_new",
    "full",
    "registered",
    "disqualified",
    "arena_over",
    "bots_not_admitted",
    "too_many_arenas",
)
Open = (Tournament.Status.REGISTERING,)
Running = (Tournament.Status.RUNNING, Tournament.Status.PAUSED)


def rating_of(user: User, game: str) -> tuple[float, int]:
    """The user's rating ordinal for ``game`` and their rated matches in it (seeding uses the
    ordinal; the entry conditions compare its shown rating, ``from_ordinal``)."""
    row = Rating.objects.filter(user=user, game=game).only("ordinal", "rated_matches").first()
    if row is None:
        return ordinal(DEFAULT_MU, DEFAULT_SIGMA), 0
    return row.ordinal, row.rated_matches


def players_count(tournament: Tournament) -> int:
    return tournament.entries.filter(joined=True, status=Entry.Status.ACTIVE).count()


def arena_open(tournament: Tournament, now: datetime) -> bool:
    """An arena takes joins (and returns) from registration to the end of its window."""
    if tournament.format != Tournament.Format.ARENA:
        return False
    if tournament.status == Tournament.Status.REGISTERING:
        return True
    return (
        tournament.status == Tournament.Status.RUNNING
        and tournament.ends_at is not None
        and now < tournament.ends_at
    )


def _late_entry_possible(tournament: Tournament) -> bool:
    """A running (or paused) Swiss takes late players, by the organiser's invitation."""
    return tournament.status in Running and tournament.format == Tournament.Format.SWISS


def why_not(tournament: Tournament, user: User, now: datetime) -> str | None:
    """Why ``user`` may not join now, as a stable code; None when they may. A player the
    organiser invited to a running Swiss may join it late, under the other conditions."""
    entry = tournament.entries.filter(user=user).first()
    if entry is not None and entry.joined and entry.status == Entry.Status.ACTIVE:
        return "registered"
    if entry is not None and entry.status == Entry.Status.DISQUALIFIED:
        return "disqualified"
    if user.is_bot and not tournament.admit_bots:
        return "bots_not_admitted"
    late = entry is not None and entry.invited and _late_entry_possible(tournament)
    if tournament.format == Tournament.Format.ARENA and tournament.status in Running:
        if not arena_open(tournament, now):
            return "arena_over"
        late = True  # anyone may join a running arena, under the other conditions
    if tournament.status != Tournament.Status.REGISTERING and not late:
        return "not_registering"
    if not late and tournament.registration_opens_at and now < tournament.registration_opens_at:
        return "registration_not_open"
    if not late and tournament.registration_closes_at and now >= tournament.registration_closes_at:
        return "registration_closed"
    if tournament.visibility == Tournament.Visibility.INVITATION and (
        entry is None or not entry.invited
    ):
        return "invitation_only"
    ordinal_now, rated = rating_of(user, tournament.game)
    shown = from_ordinal(ordinal_now)  # the conditions are typed as players read ratings
    if tournament.min_rating is not None and shown < tournament.min_rating:
        return "rating_too_low"
    if tournament.max_rating is not None and shown > tournament.max_rating:
        return "rating_too_high"
    if rated < tournament.min_rated_games:
        return "too_few_rated_games"
    days = tournament.min_account_days
    if days and user.date_joined > now - timedelta(days=days):
        return "account_too_new"
    if tournament.max_players is not None and players_count(tournament) >= tournament.max_players:
        return "full"
    if tournament.format == Tournament.Format.ARENA and _arenas_entered(user, tournament) >= int(
        settings.FACEDOWN_ARENA_ENTRIES_PER_ACCOUNT
    ):
        return "too_many_arenas"
    return None


def _arenas_entered(user: User, besides: Tournament) -> int:
    """The other arenas, in registration or running, the user is in now (a cap: each entry
    is paired continuously)."""
    return (
        Entry.objects.filter(
            user=user,
            joined=True,
            status=Entry.Status.ACTIVE,
            tournament__format=Tournament.Format.ARENA,
            tournament__status__in=(Tournament.Status.REGISTERING, Tournament.Status.RUNNING),
        )
        .exclude(tournament=besides)
        .count()
    )


def tournament_join(
    *, tournament_id: uuid.UUID | str, user: User, now: datetime | None = None
) -> Entry:
    """Register ``user``; the conditions are checked again under the lock."""
    now = now or timezone.now()
    play_allowed_check(user, now=now)
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        reason = why_not(tournament, user, now)
        if reason == "registered":
            raise AlreadyRegistered()
        if reason == "full":
            raise TournamentFull()
        if reason in (
            "not_registering",
            "registration_not_open",
            "registration_closed",
            "arena_over",
        ):
            raise TournamentNotOpen(why_not=reason)
        if reason in ("rating_too_low", "rating_too_high"):
            raise _rating_refused(tournament, user, reason)
        if reason is not None:
            raise EntryRefused(why_not=reason)
        entry = _entry_activate(tournament, user, now)
        event_add(tournament, "joined", at=now, author=user, player=user.username)
    return entry


def _rating_refused(tournament: Tournament, user: User, reason: str) -> EntryRefused:
    """The refusal names both numbers in the units the organiser typed and players read."""
    low = reason == "rating_too_low"
    return EntryRefused(
        gettext_noop("Your rating is below this tournament's minimum.")
        if low
        else gettext_noop("Your rating is above this tournament's maximum."),
        why_not=reason,
        rating=from_ordinal(rating_of(user, tournament.game)[0]),
        limit=tournament.min_rating if low else tournament.max_rating,
    )


def _entry_activate(tournament: Tournament, user: User, now: datetime) -> Entry:
    rating, _ = rating_of(user, tournament.game)
    entry, _ = Entry.objects.update_or_create(
        tournament=tournament,
        user=user,
        defaults={
            "rating": rating,
            "status": Entry.Status.ACTIVE,
            "joined": True,
            "joined_at": now,
            "left_at": None,
        },
    )
    return entry


def tournament_withdraw(
    *, tournament_id: uuid.UUID | str, user: User, now: datetime | None = None
) -> Entry:
    """Leave: before the start the place is freed; once running, the player's seats in running
    matches go to the stand-in bot to the end of those matches and they are not paired again."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        entry = tournament.entries.filter(
            user=user, joined=True, status=Entry.Status.ACTIVE
        ).first()
        if entry is None:
            raise NotRegistered()
        if tournament.status not in (*Open, *Running):
            raise TournamentNotOpen()
        entry.status, entry.left_at = Entry.Status.WITHDRAWN, now
        # Before the start the place is freed: the player is in no pairing.
        entry.joined = tournament.status in Running
        entry.save(update_fields=["status", "left_at", "joined"])
        event_add(tournament, "withdrew", at=now, author=user, player=user.username)
        # Leaving an arena ends the pairing, not the match at hand: the player plays it out.
        if tournament.status in Running and tournament.format != Tournament.Format.ARENA:
            absent_handed_over(tournament, user, reason="withdrew from the tournament")
    return entry


def _organiser(tournament: Tournament, by: User) -> None:
    if not (by.pk == tournament.organiser_id or (by.is_staff and by.is_active)):
        raise PermissionDenied(gettext_noop("Only the organiser may do this."))


def _user_named(username: str) -> User:
    found = User.objects.filter(username__iexact=username or "").first()
    if found is None:
        raise NotFound(gettext_noop("Unknown user."))
    return found


def player_invite(
    *, tournament_id: uuid.UUID | str, by: User, username: str, now: datetime | None = None
) -> Entry:
    """The organiser invites a player, in registration or, for a Swiss, once running (a late
    player, who starts with no points). Nobody is entered by someone else: the invitee is
    notified and joins (``tournament_join``, through the same entry conditions as anyone) or
    declines (``tournament_decline``). The invitation passes ``invitations_allow`` (the
    invitee's refusals, the hourly budget)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        _organiser(tournament, by)
        user = _user_named(username)
        entry = tournament.entries.filter(user=user).first()
        if entry is not None and entry.joined and entry.status == Entry.Status.ACTIVE:
            raise AlreadyRegistered()
        if entry is not None and entry.status == Entry.Status.DISQUALIFIED:
            raise EntryRefused(why_not="disqualified")
        if not (tournament.status in Open or _late_entry_possible(tournament)):
            raise TournamentNotOpen(
                gettext_noop("Late players join only a Swiss tournament, or one in registration.")
            )
        if entry is not None and entry.invited:
            raise AlreadyInvited()
        invitations_allow(sender=by, recipients=[user.pk], now=now)
        if entry is None:
            entry = Entry.objects.create(
                tournament=tournament, user=user, joined=False, invited=True
            )
        else:
            entry.invited = True
            entry.save(update_fields=["invited"])
        event_add(tournament, "invited", at=now, author=by, player=user.username)
        announce = Announcements()
        announce.add("tournament_registration_open", tournament, now, user_id=user.pk)
        announce.send_on_commit()
    return entry


def tournament_decline(
    *, tournament_id: uuid.UUID | str, user: User, now: datetime | None = None
) -> None:
    """The invitee refuses the invitation: it is gone (an invitation-only tournament then
    refuses their ``join``)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        entry = tournament.entries.filter(user=user, invited=True).first()
        if entry is None or (entry.joined and entry.status == Entry.Status.ACTIVE):
            raise NotInvited()
        if not entry.joined and entry.status == Entry.Status.ACTIVE:
            entry.delete()  # never entered: nothing of it remains
        else:
            entry.invited = False
            entry.save(update_fields=["invited"])
        event_add(tournament, "declined", at=now, author=user, player=user.username)


def player_disqualify(
    *,
    tournament_id: uuid.UUID | str,
    by: User,
    username: str,
    reason: str = "",
    now: datetime | None = None,
) -> Entry:
    """Remove a player: their running matches go to the stand-in bot to the end; the games
    they finished stand (an opponent who beat them fairly keeps that, and so does one who
    lost); they are never paired again."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        _organiser(tournament, by)
        user = _user_named(username)
        entry = tournament.entries.filter(user=user, joined=True).first()
        if entry is None or entry.status == Entry.Status.DISQUALIFIED:
            raise NotRegistered()
        if tournament.status not in (*Open, *Running):
            raise TournamentNotOpen()
        entry.status, entry.left_at = Entry.Status.DISQUALIFIED, now
        entry.save(update_fields=["status", "left_at"])
        text = (reason or "").strip()[:500]
        event_add(tournament, "disqualified", at=now, author=by, player=user.username, reason=text)
        if tournament.status in Running:
            absent_handed_over(tournament, user, reason="disqualified from the tournament")
    return entry
