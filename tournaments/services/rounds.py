"""Rounds: opening one (pairing, byes, the matches), recording finished tables, ending a
round and opening the next, finishing the tournament.

Every function here runs with the tournament row locked by its caller (``tournaments.locks``);
the matches are created and joined through games' services, each in its own unit of work
nested in the tournament's transaction, so a round's matches appear together or not at all.
A round is opened only by ``round_check`` under that lock after re-reading the round's rows:
two workers finishing a round's last two matches at once open the next round exactly once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from accounts.models import User
from games import events
from games.catalog import get_engine
from games.models import Match, MatchEvent, Seat
from games.services.matches import SeatSpec, match_create, match_join
from tournaments.models import Entry, Tournament, TournamentBye, TournamentMatch, TournamentRound
from tournaments.pairing.knockout import knockout_advancing, knockout_round, knockout_rounds_needed
from tournaments.pairing.round_robin import round_robin
from tournaments.pairing.swiss import swiss_round
from tournaments.pairing.types import Entrant, Played, Round
from tournaments.services.announce import Announcements
from tournaments.services.log import event_add
from tournaments.services.results import Results, entries_of, results_of

Running = (Tournament.Status.RUNNING, Tournament.Status.PAUSED)


def _schedule(tournament: Tournament, results: Results) -> list[Round]:
    """The whole round-robin schedule, from the players as they were at the start (entries
    are never added to a running round robin), ordered by rating then id: the same each time."""
    double = tournament.format == Tournament.Format.DOUBLE_ROUND_ROBIN
    return round_robin(
        [e.id for e in results.entrants],
        tournament.seats,
        double=double,
        min_seats=min_seats(tournament),
    )


def min_seats(tournament: Tournament) -> int:
    """The smallest table the game allows: a table is never made smaller (they sit out)."""
    engine = get_engine(tournament.game)
    return min(tournament.seats, engine.min_players) if engine is not None else tournament.seats


def rounds_planned(tournament: Tournament, results: Results) -> int:
    if tournament.format == Tournament.Format.SWISS:
        return tournament.rounds or 1
    if tournament.format == Tournament.Format.KNOCKOUT:
        return knockout_rounds_needed(len(results.entrants), tournament.seats)
    return len(_schedule(tournament, results))


def _knockout_alive(tournament: Tournament, results: Results, after: int) -> list[Entrant]:
    """Who is still in after round ``after``: everyone active before the first round; then
    those who went through a table of that round (its deciding match, if it had one) or had
    its bye, and are still active."""
    active = {e.id: e for e in results.entrants if e.active}
    if after == 0:
        return list(active.values())
    by_id = {e.id: e for e in results.entrants}
    through: list[int] = []
    decided: set[tuple[int, ...]] = set()
    # Later tables of the round (deciding matches) come last: the last word for a group.
    for played in reversed([p for p in results.played if p.round == after]):
        group = tuple(sorted(played.players))
        if group in decided:
            continue
        advancing = knockout_advancing(
            played, seats=tournament.seats, entrants=by_id, rule=tournament.knockout_draws
        )
        if advancing is not None:
            decided.add(group)
            through.extend(advancing)
    byes = TournamentBye.objects.filter(round__tournament=tournament, round__number=after)
    through.extend(byes.values_list("user_id", flat=True))
    return [active[player] for player in through if player in active]


def _pairing(tournament: Tournament, results: Results, number: int) -> Round:
    if tournament.format == Tournament.Format.SWISS:
        return swiss_round(
            results.entrants,
            results.played,
            results.byes,
            seats=tournament.seats,
            round_number=number,
            min_seats=min_seats(tournament),
        )
    if tournament.format == Tournament.Format.KNOCKOUT:
        return knockout_round(
            _knockout_alive(tournament, results, number - 1), seats=tournament.seats
        )
    return _schedule(tournament, results)[number - 1]


def _user(entries: dict[int, Entry], player: int) -> User:
    return entries[player].user


def table_open(
    tournament: Tournament,
    round_row: TournamentRound,
    players: tuple[int, ...],
    entries: dict[int, Entry],
    now: datetime,
) -> TournamentMatch:
    """One table: a match whose seats are all filled at once, so it starts now. An absent
    player's seat (round robin with unrated stand-in games) is the stand-in bot's; with
    forfeits chosen instead, no match: the table is recorded lost by the absent."""
    absent = [p for p in players if entries[p].status != Entry.Status.ACTIVE]
    if absent and (
        tournament.withdrawn_games == Tournament.WithdrawnGames.FORFEIT
        or len(absent) == len(players)
    ):
        present = [i for i, p in enumerate(players) if p not in absent]
        lost = [i for i, p in enumerate(players) if p in absent]
        ranking = [group for group in (present, lost) if group]
        return TournamentMatch.objects.create(
            round=round_row,
            players=list(players),
            ranking=ranking,
            forfeited=absent,
            finished_at=now,
        )
    specs = [
        SeatSpec(kind="bot", bot=tournament.stand_in_bot) if p in absent else SeatSpec(kind="open")
        for p in players
    ]
    match = match_create(
        creator=tournament.organiser,
        game=tournament.game,
        seats=specs,
        options=tournament.options,
        time_control=tournament.time_control,
        rated=tournament.rated and not absent,
        chat=True,
        invitations=False,  # the players entered the tournament themselves: joined at once
    )
    for index, player in enumerate(players):
        if player not in absent:
            match_join(match_id=match.id, user=_user(entries, player), seat=index, now=now)
    return TournamentMatch.objects.create(
        round=round_row, match=match, players=list(players), decided_by_stand_in=bool(absent)
    )


def round_open(
    tournament: Tournament, number: int, now: datetime, announce: Announcements
) -> TournamentRound:
    results = results_of(tournament)
    pairing = _pairing(tournament, results, number)
    round_row = TournamentRound.objects.create(
        tournament=tournament,
        number=number,
        started_at=now,
        limit_at=now + timedelta(seconds=tournament.round_limit_seconds),
    )
    for table in pairing.tables:
        opened = table_open(tournament, round_row, table.players, results.entries, now)
        announce.round_started(tournament, round_row, opened, results.entries)
    for player in pairing.byes:
        TournamentBye.objects.create(round=round_row, user_id=player)
    tournament.current_round = number
    Tournament.objects.filter(pk=tournament.pk).update(current_round=number)
    event_add(
        tournament,
        "round_started",
        at=now,
        round=number,
        tables=len(pairing.tables),
        byes=len(pairing.byes),
    )
    return round_row


def _ranking_of(match: Match, seats: int) -> list[list[int]]:
    """The finished match's ranking; an aborted match counts as a draw of every seat."""
    if match.status == Match.Status.FINISHED and match.result:
        return [list(group) for group in match.result["ranking"]]
    return [list(range(seats))]


def tables_record(round_row: TournamentRound, now: datetime) -> list[TournamentMatch]:
    """Record every table of the round whose match is over; returns those just recorded."""
    recorded = []
    waiting = round_row.tables.filter(ranking__isnull=True, match__isnull=False).select_related(
        "match"
    )
    for table in waiting:
        match = table.match
        assert match is not None
        if match.status not in (Match.Status.FINISHED, Match.Status.ABORTED):
            continue
        seats = list(Seat.objects.filter(match=match).order_by("index"))
        table.ranking = _ranking_of(match, len(seats))
        table.forfeited = [s.user_id for s in seats if s.forfeited and s.user_id is not None]
        table.finished_at = now
        table.save(update_fields=["ranking", "forfeited", "finished_at"])
        _timed_out_leave(round_row, match, seats, now)
        recorded.append(table)
    return recorded


def _timed_out_leave(
    round_row: TournamentRound, match: Match, seats: list[Seat], now: datetime
) -> None:
    """A player who forfeited a match by timing out is absent: not paired again (their seat
    was played to the end by the stand-in, as for every forfeit)."""
    timed_out = set(
        MatchEvent.objects.filter(
            match=match, type=events.SEAT_FORFEITED.name, data__reason="timeout"
        ).values_list("data__seat", flat=True)
    )
    users = [s.user_id for s in seats if s.index in timed_out and s.user_id is not None]
    leaving = Entry.objects.filter(
        tournament_id=round_row.tournament_id, user_id__in=users, status=Entry.Status.ACTIVE
    ).select_related("user", "tournament")
    for entry in leaving:
        entry.status, entry.left_at = Entry.Status.WITHDRAWN, now
        entry.save(update_fields=["status", "left_at"])
        event_add(
            entry.tournament, "withdrew", at=now, player=entry.user.username, reason="timed_out"
        )


def knockout_replays_open(
    tournament: Tournament,
    round_row: TournamentRound,
    recorded: list[TournamentMatch],
    now: datetime,
) -> int:
    """A drawn knockout table under the ``replay`` rule gets a deciding match in the same
    round, with the same players; the round ends when it is decided."""
    entries = entries_of(tournament)
    by_id = {
        user_id: Entrant(user_id, entry.rating, entry.status == Entry.Status.ACTIVE)
        for user_id, entry in entries.items()
    }
    opened = 0
    for table in recorded:
        played = Played(
            round=round_row.number,
            players=tuple(table.players),
            ranking=tuple(tuple(group) for group in table.ranking or ()),
            forfeited=tuple(table.forfeited or ()),
        )
        if (
            knockout_advancing(
                played, seats=tournament.seats, entrants=by_id, rule=tournament.knockout_draws
            )
            is None
        ):
            table_open(tournament, round_row, tuple(table.players), entries, now)
            opened += 1
    return opened


def is_last_round(tournament: Tournament, number: int) -> bool:
    results = results_of(tournament)
    if tournament.format == Tournament.Format.KNOCKOUT:
        alive = len(_knockout_alive(tournament, results, number))
        return alive <= 1 or number >= (tournament.rounds or 0)
    if sum(e.active for e in results.entrants) < 2:
        return True
    return number >= (tournament.rounds or 0)
