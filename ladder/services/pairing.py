"""A pairing wave: every free, active entrant of every ladder, paired and seated at once.

One wave runs at a time: it locks every active entry first (``ladder.locks``), then counts
each entrant's running ladder matches, so an entrant is never seated past its cap whoever
runs the next wave. Per game, the formats most entrants share are paired first
(``pair_wave``: nearest ranks, no pair meeting again within ``FACEDOWN_LADDER_REMATCH_SECONDS``
unless someone would otherwise wait, never an entrant with one who refuses bot accounts); an
entrant sits at one new table per wave. The matches are created through games' services in
the wave's transaction: they all appear, started, or none does.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta
from itertools import combinations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.sanctions import play_suspended
from games.catalog import get_engine
from games.services.matches import SeatSpec, match_create, match_join
from games.services.rating_scale import shown_rating
from games.services.ratings import ordinal
from ladder.locks import active_entries_lock
from ladder.models import LadderEntry, LadderMatch
from ladder.services.formats import Format, formats_of
from tournaments.pairing.waves import Waiting, pair_key, pair_wave

Pair = tuple[int, int]


def _first_seats(game: str) -> dict[int, int]:
    """Times each entry sat first on this ladder: at two seats, fewer goes first."""
    firsts = LadderMatch.objects.filter(game=game).values_list("entries__0", flat=True)
    return dict(Counter(int(pk) for pk in firsts))


def _running() -> tuple[Counter[int], int]:
    """Running ladder matches per entry id, and in all."""
    per_entry: Counter[int] = Counter()
    total = 0
    for entries in LadderMatch.objects.filter(finished_at__isnull=True).values_list(
        "entries", flat=True
    ):
        per_entry.update(entries)
        total += 1
    return per_entry, total


def _recent(now: datetime) -> dict[Pair, int]:
    since = now - timedelta(seconds=float(settings.FACEDOWN_LADDER_REMATCH_SECONDS))
    met: Counter[Pair] = Counter()
    for entries in LadderMatch.objects.filter(started_at__gte=since).values_list(
        "entries", flat=True
    ):
        met.update(pair_key(a, b) for a, b in combinations(entries, 2))
    return dict(met)


def _apart(entries: list[LadderEntry]) -> set[Pair]:
    """Pairs a refusal setting keeps apart: a person who refuses bot accounts and a bot."""
    bots = [e.pk for e in entries if e.user.is_bot]
    refusing = [e.pk for e in entries if not e.user.is_bot and not e.user.invitations_from_bots]
    return {pair_key(a, b) for a in bots for b in refusing}


def _table_open(entries: list[LadderEntry], fmt: Format, game: str, now: datetime) -> None:
    match = match_create(
        creator=entries[0].user,
        game=game,
        seats=[SeatSpec(kind="open") for _ in entries],
        options=fmt.options_value(),
        time_control=fmt.time_control_value(),
        rated=False,  # the ladder rates in its own pool (ladder.services.results)
        chat=False,
        invitations=False,  # a pairing is not an invitation: each entered themselves
    )
    LadderMatch.objects.create(
        match=match, game=game, entries=[e.pk for e in entries], started_at=now
    )
    for index, entry in enumerate(entries):
        match_join(match_id=match.id, user=entry.user, seat=index, now=now)


def _game_wave(
    game: str,
    free: list[LadderEntry],
    recent: dict[Pair, int],
    apart: set[Pair],
    left: int,
    now: datetime,
) -> int:
    engine = get_engine(game)
    if engine is None:
        return 0
    by_format: dict[Format, list[LadderEntry]] = defaultdict(list)
    for entry in free:
        for fmt in formats_of(entry):
            by_format[fmt].append(entry)
    # The formats most entrants share first; ties in a fixed order (deterministic).
    order = sorted(
        by_format, key=lambda f: (-len(by_format[f]), f.seats, f.options, f.time_control)
    )
    ranked = sorted(free, key=lambda e: (-ordinal(e.mu, e.sigma), e.pk))
    rank = {entry.pk: place for place, entry in enumerate(ranked)}
    seated: set[int] = set()
    firsts = _first_seats(game)
    opened = 0
    for fmt in order:
        members = [e for e in by_format[fmt] if e.pk not in seated]
        if len(members) < fmt.seats or opened >= left:
            continue
        by_id = {e.pk: e for e in members}
        waiting = [
            Waiting(id=e.pk, rank=rank[e.pk], rating=float(shown_rating(e.mu, e.sigma)))
            for e in members
        ]
        wave = pair_wave(waiting, seats=fmt.seats, recent=recent, apart=apart, first_seat=firsts)
        for table in wave.tables:
            if opened >= left:
                break
            _table_open([by_id[p] for p in table.players], fmt, game, now)
            seated.update(table.players)
            opened += 1
    return opened


def ladder_pair(*, now: datetime | None = None) -> int:
    """One wave over every ladder; returns the matches started."""
    now = now or timezone.now()
    with transaction.atomic():
        entries = active_entries_lock()
        running, total = _running()
        left = int(settings.FACEDOWN_LADDER_MAX_MATCHES) - total
        free = [
            e
            for e in entries
            if running[e.pk] < e.max_concurrent
            and e.user.is_active
            and not play_suspended(e.user, now=now)
        ]
        if left <= 0 or len(free) < 2:
            return 0
        recent, apart = _recent(now), _apart(free)
        by_game: dict[str, list[LadderEntry]] = defaultdict(list)
        for entry in free:
            by_game[entry.game].append(entry)
        opened = 0
        for game in sorted(by_game):
            opened += _game_wave(game, by_game[game], recent, apart, left - opened, now)
        return opened
