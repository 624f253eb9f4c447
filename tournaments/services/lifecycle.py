"""A tournament's life: the start (at ``starts_at`` or early by the organiser), each round's
end and the next round, the round limit, pause and resume, the end, and the periodic sweep
that does whatever is due (a lost job delays nothing by more than one sweep)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import partial

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from core.account_feed import FeedItem, feed_send
from core.errors import PauseNotAllowed, PermissionDenied, TournamentNotOpen
from games.models import Match
from games.services.holds import match_hold, match_hold_end
from tournaments.locks import tournament_lock
from tournaments.models import Entry, Tournament, TournamentMatch, TournamentRound
from tournaments.pairing.standings import Standing, standings
from tournaments.services.announce import Announcements
from tournaments.services.arena import (
    arena_finish,
    arena_record,
    arena_wave,
    arenas_running,
    wave_in_lock,
)
from tournaments.services.create import pause_allowed
from tournaments.services.log import event_add
from tournaments.services.results import Results, results_of
from tournaments.services.rounds import (
    Running,
    is_last_round,
    knockout_replays_open,
    round_open,
    rounds_planned,
    tables_record,
)
from tournaments.services.seat_handover import round_limit_handed_over

#: Rounds opened in one check at most (rounds with no table end at once).
MAX_ROUNDS_PER_CHECK = 8


def _organiser(tournament: Tournament, by: User) -> None:
    if not (by.pk == tournament.organiser_id or (by.is_staff and by.is_active)):
        raise PermissionDenied(gettext_noop("Only the organiser may do this."))


def tournament_start(
    *, tournament_id: uuid.UUID | str, by: User | None = None, now: datetime | None = None
) -> Tournament:
    """Start: ``by`` the organiser early, or (None) the sweep at ``starts_at``. With fewer
    than two players (or fewer than a table's seats) the sweep cancels the tournament."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        if by is not None:
            _organiser(tournament, by)
        if tournament.status != Tournament.Status.REGISTERING:
            raise TournamentNotOpen()
        players = tournament.entries.filter(joined=True, status=Entry.Status.ACTIVE).count()
        # An arena opens with whoever is there: players join during the window.
        arena = tournament.format == Tournament.Format.ARENA
        if players < max(2, tournament.seats) and not arena:
            if by is not None:
                raise TournamentNotOpen(gettext_noop("Too few players to start."))
            _close(tournament, Tournament.Status.CANCELLED, now)
            event_add(tournament, "ended", at=now, reason="too_few_players")
            return tournament
        if tournament.format == Tournament.Format.ARENA:
            _arena_start(tournament, now, by, players, announce)
            announce.send_on_commit()
            return tournament
        tournament.status = Tournament.Status.RUNNING
        tournament.rounds = rounds_planned(tournament, results_of(tournament))
        tournament.save(update_fields=["status", "rounds"])
        event_add(tournament, "started", at=now, author=by, players=players)
        round_open(tournament, 1, now, announce)
        _advance(tournament, now, announce)
        announce.send_on_commit()
    return tournament


def _arena_start(
    tournament: Tournament, now: datetime, by: User | None, players: int, announce: Announcements
) -> None:
    """The window opens now for its length; the first wave pairs whoever is there."""
    tournament.status = Tournament.Status.RUNNING
    tournament.ends_at = now + timedelta(minutes=tournament.arena_minutes or 0)
    tournament.save(update_fields=["status", "ends_at"])
    event_add(tournament, "started", at=now, author=by, players=players)
    wave_in_lock(tournament, now, announce)


def _close(tournament: Tournament, status: str, now: datetime) -> None:
    tournament.status, tournament.finished_at = status, now
    tournament.save(update_fields=["status", "finished_at"])


def _finish(
    tournament: Tournament, now: datetime, announce: Announcements, by: User | None
) -> None:
    _close(tournament, Tournament.Status.FINISHED, now)
    results = results_of(tournament)
    rows = standings(results.entrants, results.played, results.byes)
    event_add(tournament, "finished", at=now, author=by, winner=_winner(rows, results))
    for row in rows:
        announce.add(
            "tournament_finished",
            tournament,
            now,
            user_id=row.player,
            place=row.rank,
            players=len(rows),
        )


def _winner(rows: list[Standing], results: Results) -> str | None:
    if not rows:
        return None
    return results.entries[rows[0].player].user.username


def _advance(tournament: Tournament, now: datetime, announce: Announcements) -> bool:
    """Record what finished in the current round; end it when every table is decided; open
    the next round (or finish) when it is due. Returns whether anything changed."""
    changed = False
    for _ in range(MAX_ROUNDS_PER_CHECK):
        if tournament.current_round == 0 or tournament.status not in (
            Tournament.Status.RUNNING,
            Tournament.Status.PAUSED,
        ):
            return changed
        round_row = tournament.round_rows.get(number=tournament.current_round)
        if round_row.finished_at is None:
            recorded = tables_record(round_row, now)
            changed |= bool(recorded)
            running = tournament.status == Tournament.Status.RUNNING
            if running and tournament.format == Tournament.Format.KNOCKOUT and recorded:
                changed |= knockout_replays_open(tournament, round_row, recorded, now) > 0
            if round_row.tables.filter(ranking__isnull=True).exists():
                return changed
            round_row.finished_at = now
            round_row.save(update_fields=["finished_at"])
            event_add(tournament, "round_finished", at=now, round=round_row.number)
            announce.add("standings", tournament, now, round=round_row.number)
            changed = True
        if tournament.status != Tournament.Status.RUNNING:
            return changed  # paused: no new round
        if is_last_round(tournament, round_row.number):
            _finish(tournament, now, announce, None)
            return True
        if tournament.round_interval_days is not None:
            due = round_row.started_at + timedelta(days=tournament.round_interval_days)
            if now < due:
                return changed
        round_open(tournament, round_row.number + 1, now, announce)
        changed = True
    return changed


def round_check(*, tournament_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """Re-read the current round under the tournament's lock and move on if it is over: the
    job a finished match of the tournament leaves; running it twice changes nothing."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        changed = _advance(tournament, now, announce)
        announce.send_on_commit()
    return changed


def round_limit_apply(*, tournament_id: uuid.UUID | str, now: datetime | None = None) -> int:
    """At the current round's ``limit_at``: the stand-in bot takes every human seat of its
    unfinished matches and plays them to the end. Returns the tables newly so decided."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        if tournament.status != Tournament.Status.RUNNING or tournament.current_round == 0:
            return 0
        round_row = tournament.round_rows.get(number=tournament.current_round)
        if round_row.finished_at is not None or now < round_row.limit_at:
            return 0
        fresh = [
            t.pk for t in round_row.tables.filter(ranking__isnull=True, decided_by_stand_in=False)
        ]
        decided = [
            t for t in round_limit_handed_over(tournament, round_row.number) if t.pk in fresh
        ]
        if decided:
            event_add(
                tournament, "round_limit", at=now, round=round_row.number, tables=len(decided)
            )
            for table in decided:
                for player in table.players:
                    announce.add(
                        "tournament_stand_in",
                        tournament,
                        now,
                        user_id=player,
                        match=str(table.match_id),
                        round=round_row.number,
                    )
        announce.send_on_commit()
    return len(decided)


def tournament_pause(
    *, tournament_id: uuid.UUID | str, by: User, now: datetime | None = None
) -> Tournament:
    """Hold the tournament: no new round opens, the round limit waits, and the clocks of its
    matches still running stop (for at most games' ``HOLD_LIMIT``, 14 days)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        _organiser(tournament, by)
        if tournament.status != Tournament.Status.RUNNING:
            raise TournamentNotOpen()
        if not pause_allowed(tournament):
            raise PauseNotAllowed(
                gettext_noop(
                    "Only a correspondence tournament whose time control allows pauses may pause."
                )
            )
        tournament.status = Tournament.Status.PAUSED
        tournament.save(update_fields=["status"])
        event_add(tournament, "paused", at=now, author=by)
        # Lock order: the tournament row first, then one match at a time (docs/architecture.md).
        for match_id in _running(tournament):
            match_hold(match_id=match_id, now=now)
    return tournament


def _running(tournament: Tournament) -> list[uuid.UUID]:
    tables = TournamentMatch.objects.filter(
        round__tournament=tournament, match__status=Match.Status.ACTIVE
    )
    return list(tables.values_list("match_id", flat=True))


def tournament_resume(
    *, tournament_id: uuid.UUID | str, by: User, now: datetime | None = None
) -> Tournament:
    """Go on: the current round's limit moves on by the time the pause lasted, and the clocks
    of its running matches count again."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        _organiser(tournament, by)
        if tournament.status != Tournament.Status.PAUSED:
            raise TournamentNotOpen()
        paused = tournament.events.filter(type="paused").order_by("-seq").first()
        held = now - paused.at if paused is not None else timedelta(0)
        TournamentRound.objects.filter(
            tournament=tournament, number=tournament.current_round, finished_at__isnull=True
        ).update(limit_at=F("limit_at") + held)
        tournament.status = Tournament.Status.RUNNING
        tournament.save(update_fields=["status"])
        event_add(tournament, "resumed", at=now, author=by)
        for match_id in _running(tournament):
            match_hold_end(match_id=match_id, now=now)
        _advance(tournament, now, announce)
        announce.send_on_commit()
    return tournament


def tournament_end(
    *, tournament_id: uuid.UUID | str, by: User, now: datetime | None = None
) -> Tournament:
    """The organiser ends it now: in registration it is cancelled; running, it finishes with
    the standings of the finished tables (matches still running play on, outside the result)."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id)
        _organiser(tournament, by)
        if tournament.status == Tournament.Status.REGISTERING:
            _close(tournament, Tournament.Status.CANCELLED, now)
            event_add(tournament, "ended", at=now, author=by, reason="cancelled")
            _cancelled_tell(tournament)
        elif tournament.format == Tournament.Format.ARENA and tournament.status in Running:
            arena_record(tournament, now)
            event_add(tournament, "ended", at=now, author=by, reason="ended")
            arena_finish(tournament, now, announce, by)
        elif tournament.status in (Tournament.Status.RUNNING, Tournament.Status.PAUSED):
            round_row = tournament.round_rows.filter(number=tournament.current_round).first()
            if round_row is not None:
                tables_record(round_row, now)
            event_add(tournament, "ended", at=now, author=by, reason="ended")
            _finish(tournament, now, announce, by)
        else:
            raise TournamentNotOpen()
        announce.send_on_commit()
    return tournament


def _cancelled_tell(tournament: Tournament) -> None:
    """Its entrants and invitees hear on their account stream that it was cancelled."""
    users = tournament.entries.filter(status=Entry.Status.ACTIVE).values_list("user_id", flat=True)
    data = {"id": str(tournament.pk), "name": tournament.name, "status": tournament.status}
    items: list[FeedItem] = [(user_id, "tournament_cancelled", data) for user_id in users]
    if items:
        transaction.on_commit(partial(feed_send, items), robust=True)


def tournaments_sweep(*, now: datetime | None = None) -> int:
    """What is due: starts, round limits, rounds whose last match's job was lost, interval
    rounds. Returns how many tournaments changed."""
    now = now or timezone.now()
    changed = 0
    due = Tournament.objects.filter(status=Tournament.Status.REGISTERING, starts_at__lte=now)
    for tournament_id in due.values_list("pk", flat=True):
        try:
            tournament_start(tournament_id=tournament_id, now=now)
            changed += 1
        except TournamentNotOpen:
            continue  # started or cancelled meanwhile
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    changed += sum(bool(arena_wave(tournament_id=pk, now=now)) for pk in arenas_running())
    running = running.exclude(format=Tournament.Format.ARENA)
    for tournament_id in running.values_list("pk", flat=True):
        limited = round_limit_apply(tournament_id=tournament_id, now=now)
        changed += bool(round_check(tournament_id=tournament_id, now=now) or limited)
    return changed


def table_of_match(match_id: uuid.UUID | str) -> TournamentMatch | None:
    tables = TournamentMatch.objects.filter(match_id=match_id)
    return tables.select_related("round__tournament").first()


def match_finished(*, match_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """The job a finished tournament match leaves: check its tournament's round."""
    table = table_of_match(match_id)
    if table is None:
        return False
    if table.round.tournament.format == Tournament.Format.ARENA:
        # The players of the match are free: pair them now, not at the next periodic wave.
        return arena_wave(tournament_id=table.round.tournament_id, now=now) > 0
    return round_check(tournament_id=table.round.tournament_id, now=now)
