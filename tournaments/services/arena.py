"""Arena waves: record what finished, score it, and pair every free entrant again.

A wave runs under the tournament row's lock, so two waves (the periodic job's and a finished
match's) never run at once: the second re-reads who is seated and pairs only the free. The
periodic job skips an arena whose lock is held (that wave is doing the work); a finished
match's job waits for it. Pairings are tables of one new round each (``round_open``'s rows:
standings, rounds and exports read them as for every format); nobody is invited, every
entrant joined the arena themselves and is seated at once.
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games import events
from games.models import Match, MatchEvent
from games.services.rating_scale import from_ordinal
from tournaments.locks import tournament_lock, tournament_lock_try
from tournaments.models import Entry, Tournament, TournamentMatch, TournamentRound
from tournaments.pairing.arena import ArenaScore, table_scored
from tournaments.pairing.types import Played, PlayerId
from tournaments.pairing.waves import Waiting, pair_key, pair_wave
from tournaments.services.announce import Announcements
from tournaments.services.log import event_add
from tournaments.services.rounds import min_seats, table_open, tables_record

#: How many of a player's last opponents a wave avoids (unless someone would wait).
RECENT_TABLES = 2
#: The fewest latest recorded tables read for them.
RECENT_WINDOW = 50


def arena_wave(
    *, tournament_id: uuid.UUID | str, now: datetime | None = None, wait: bool = True
) -> int:
    """One wave; returns the tables opened. ``wait=False`` (the periodic job) returns 0 at
    once when another wave holds the arena. A finished match's wave (``wait=True``) opens no
    table of recent opponents: the two who just played would otherwise meet again at once;
    the periodic wave seats them together if nobody else came free by then."""
    now = now or timezone.now()
    announce = Announcements()
    with transaction.atomic():
        tournament = tournament_lock(tournament_id) if wait else tournament_lock_try(tournament_id)
        if tournament is None or tournament.format != Tournament.Format.ARENA:
            return 0
        if tournament.status != Tournament.Status.RUNNING:
            return 0
        opened = wave_in_lock(tournament, now, announce, rematch=not wait)
        announce.send_on_commit()
    return opened


def wave_in_lock(
    tournament: Tournament, now: datetime, announce: Announcements, *, rematch: bool = True
) -> int:
    """Record and score, then close the arena once its window has passed and nothing runs,
    else pair the free; the tournament row is locked by the caller."""
    recorded, busy = arena_record(tournament, now)
    if recorded:  # the standings moved: the page and the stream hear it
        announce.add("standings", tournament, now, round=tournament.current_round)
    assert tournament.ends_at is not None
    if now >= tournament.ends_at:
        if not busy:
            arena_finish(tournament, now, announce, by=None)
        return 0
    return _pair(tournament, busy, now, announce, rematch=rematch)


def arena_record(tournament: Tournament, now: datetime) -> tuple[int, set[PlayerId]]:
    """Record every finished table, score it in finishing order, withdraw from pairing who
    missed their first move; returns how many were recorded and who is still seated at a
    running table."""
    recorded: list[TournamentMatch] = []
    # Only the rounds with a match over: many waves' rounds run at once in a busy arena.
    over = TournamentMatch.objects.filter(
        round__tournament=tournament,
        ranking__isnull=True,
        match__status__in=(Match.Status.FINISHED, Match.Status.ABORTED),
    ).values("round_id")
    for round_row in TournamentRound.objects.filter(pk__in=over).order_by("number"):
        recorded += tables_record(round_row, now)
        if not round_row.tables.filter(ranking__isnull=True).exists():
            round_row.finished_at = now
            round_row.save(update_fields=["finished_at"])
    if recorded:
        _score(tournament, recorded)
        _first_move_missed_leave(tournament, recorded, now)
    running = TournamentMatch.objects.filter(
        round__tournament=tournament, ranking__isnull=True
    ).values_list("players", flat=True)
    return len(recorded), {player for players in running for player in players}


def _finish_order(table: TournamentMatch) -> tuple[datetime, int]:
    finished = table.match.finished_at if table.match is not None else None
    return (finished or table.finished_at or timezone.now(), table.pk)


def _score(tournament: Tournament, recorded: list[TournamentMatch]) -> None:
    players = {p for table in recorded for p in table.players}
    entries = {
        e.user_id: e
        for e in Entry.objects.select_for_update().filter(
            tournament=tournament, user_id__in=players
        )
    }
    scores = {p: ArenaScore(e.points, e.wins_in_row) for p, e in entries.items()}
    for table in sorted(recorded, key=_finish_order):
        played = Played(
            round=0,
            players=tuple(table.players),
            ranking=tuple(tuple(group) for group in table.ranking or ()),
            forfeited=tuple(table.forfeited or ()),
        )
        scores.update(
            table_scored(played, scores, streaks=tournament.streaks, berserked=table.berserk)
        )
    for player, entry in entries.items():
        entry.points, entry.wins_in_row = scores[player].points, scores[player].wins_in_row
    Entry.objects.bulk_update(list(entries.values()), ["points", "wins_in_row"])


def _first_move_missed_leave(
    tournament: Tournament, recorded: list[TournamentMatch], now: datetime
) -> None:
    """An entrant whose first step of a table ran out before they moved is taken out of the
    pairing (``withdrawn``) until they join again; the match itself went on as elsewhere."""
    matches = [t.match_id for t in recorded if t.match_id is not None]
    kinds = (events.MOVE_SUBMITTED.name, events.TIMEOUT.name)
    first: dict[tuple[uuid.UUID, int], str] = {}
    rows = MatchEvent.objects.filter(match_id__in=matches, type__in=kinds).order_by("match", "seq")
    for match_id, kind, seat in rows.values_list("match_id", "type", "data__seat"):
        first.setdefault((match_id, seat), kind)
    missed = [
        table.players[seat]
        for table in recorded
        for seat in range(len(table.players))
        if table.match_id is not None and first.get((table.match_id, seat)) == events.TIMEOUT.name
    ]
    leaving = Entry.objects.filter(
        tournament=tournament, user_id__in=missed, status=Entry.Status.ACTIVE
    ).select_related("user")
    for entry in leaving:
        entry.status, entry.left_at = Entry.Status.WITHDRAWN, now
        entry.save(update_fields=["status", "left_at"])
        event_add(
            tournament, "withdrew", at=now, player=entry.user.username, reason="missed_first_move"
        )


def _pair(
    tournament: Tournament,
    busy: set[PlayerId],
    now: datetime,
    announce: Announcements,
    *,
    rematch: bool,
) -> int:
    entries = {
        e.user_id: e
        for e in tournament.entries.filter(joined=True)
        .select_related("user")
        .order_by("-points", "-rating", "user_id")
    }
    rank = {player: i for i, player in enumerate(entries)}
    free = [p for p, e in entries.items() if e.status == Entry.Status.ACTIVE and p not in busy]
    if len(free) < min_seats(tournament):
        return 0
    waiting = [Waiting(id=p, rank=rank[p], rating=from_ordinal(entries[p].rating)) for p in free]
    recent = _recent(tournament, free)
    apart = _apart(entries, free)
    if not rematch:  # a finished match's wave: recent opponents wait rather than meet at once
        apart |= set(recent)
    wave = pair_wave(
        waiting,
        seats=tournament.seats,
        min_seats=min_seats(tournament),
        recent=recent,
        apart=apart,
        first_seat=_first_seats(tournament) if tournament.seats == 2 else {},
    )
    tables = wave.tables
    if not tables:
        return 0
    number = tournament.current_round + 1
    round_row = TournamentRound.objects.create(
        tournament=tournament,
        number=number,
        started_at=now,
        limit_at=max(now, tournament.ends_at or now)
        + timedelta(seconds=tournament.round_limit_seconds),
    )
    tournament.current_round = number
    Tournament.objects.filter(pk=tournament.pk).update(current_round=number)
    for table in tables:
        opened = table_open(tournament, round_row, table.players, entries, now)
        announce.round_started(tournament, round_row, opened, entries)
    event_add(tournament, "paired", at=now, round=number, tables=len(tables))
    return len(tables)


def _recent(tournament: Tournament, free: list[PlayerId]) -> dict[tuple[PlayerId, PlayerId], int]:
    """Each free player's last ``RECENT_TABLES`` tables' co-players, counted per pair, read
    from the arena's latest recorded tables (a free player's last table was recorded lately,
    unless they waited long: then it is no longer recent)."""
    wanted = set(free)
    seen: Counter[PlayerId] = Counter()
    recent: Counter[tuple[PlayerId, PlayerId]] = Counter()
    limit = max(len(free) * RECENT_TABLES, RECENT_WINDOW)
    rows = (
        TournamentMatch.objects.filter(round__tournament=tournament, ranking__isnull=False)
        .order_by("-finished_at", "-pk")
        .values_list("players", flat=True)[:limit]
    )
    for players in rows:
        for player in players:
            if player in wanted and seen[player] < RECENT_TABLES:
                seen[player] += 1
                for other in players:
                    if other != player:
                        recent[pair_key(player, other)] += 1
    # Each meeting was counted once from each side.
    return {pair: (count + 1) // 2 for pair, count in recent.items()}


def _apart(entries: dict[PlayerId, Entry], free: list[PlayerId]) -> set[tuple[PlayerId, PlayerId]]:
    """Refusal settings: an entrant who refuses bot accounts never sits with one."""
    bots = [p for p in free if entries[p].user.is_bot]
    refusing = [
        p for p in free if not entries[p].user.is_bot and not entries[p].user.invitations_from_bots
    ]
    return {pair_key(a, b) for a in bots for b in refusing}


def _first_seats(tournament: Tournament) -> dict[PlayerId, int]:
    firsts: Counter[PlayerId] = Counter()
    rows = TournamentMatch.objects.filter(round__tournament=tournament, match__isnull=False)
    for players in rows.values_list("players", flat=True):
        firsts[players[0]] += 1
    return dict(firsts)


def arena_ranking(tournament: Tournament) -> list[Entry]:
    """Every entrant who joined, best first: points, then rating at entry, then id."""
    return list(
        tournament.entries.filter(joined=True)
        .select_related("user")
        .order_by("-points", "-rating", "user_id")
    )


def arena_finish(
    tournament: Tournament, now: datetime, announce: Announcements, by: User | None
) -> None:
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.save(update_fields=["status", "finished_at"])
    rows = arena_ranking(tournament)
    winner = rows[0].user.username if rows else None
    event_add(tournament, "finished", at=now, author=by, winner=winner)
    for place, entry in enumerate(rows, start=1):
        announce.add(
            "tournament_finished",
            tournament,
            now,
            user_id=entry.user_id,
            place=place,
            players=len(rows),
        )


def arenas_running() -> list[uuid.UUID]:
    rows = Tournament.objects.filter(
        Q(status=Tournament.Status.RUNNING), format=Tournament.Format.ARENA
    )
    return list(rows.values_list("pk", flat=True))


def arena_waves(*, now: datetime | None = None) -> int:
    """The periodic job: a wave in every running arena (skipping one whose wave is under
    way). Returns the tables opened."""
    return sum(arena_wave(tournament_id=pk, now=now, wait=False) for pk in arenas_running())
