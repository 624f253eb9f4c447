"""Berserk: in an arena that allows it, a player halves their own bank in their running match
before their first move, for one more point if they win it (tournaments/pairing/arena.py)."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import BerserkRefused
from games.services.bank_halve import own_bank_halve
from tournaments.locks import tournament_lock
from tournaments.models import Tournament, TournamentMatch
from tournaments.services.log import event_add


def arena_berserk(
    *,
    tournament_id: uuid.UUID | str,
    user: User,
    match_id: uuid.UUID | str,
    now: datetime | None = None,
) -> TournamentMatch:
    """Under the arena's lock (then the match's, the order of every tournament change)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        if (
            tournament.format != Tournament.Format.ARENA
            or not tournament.berserk
            or tournament.status != Tournament.Status.RUNNING
        ):
            raise BerserkRefused()
        table = TournamentMatch.objects.filter(
            round__tournament=tournament, match_id=match_id, ranking__isnull=True
        ).first()
        if table is None or user.pk not in table.players or user.pk in table.berserk:
            raise BerserkRefused()
        if not own_bank_halve(match_id=match_id, user=user, now=now):
            raise BerserkRefused()
        table.berserk = [*table.berserk, user.pk]
        table.save(update_fields=["berserk"])
        event_add(tournament, "berserk", at=now, player=user.username, match=str(match_id))
    return table
