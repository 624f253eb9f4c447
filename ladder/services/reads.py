"""What the ladder shows anyone: its entrants with their ladder rating and its uncertainty,
the crosstable with a Wilson interval per pair, the matches with their transcripts, and the
verifier's counts. Only recorded matches are read: nothing of a match in progress."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any

from games.catalog import get_engine
from games.services.rating_scale import provisional, shown_rating
from games.services.ratings import ordinal
from ladder.models import LadderEntry, LadderMatch
from ladder.services.verification import verification_of
from ladder.services.wilson import wilson


def transcript_url(match_id: object) -> str:
    return f"/api/v1/matches/{match_id}/audit"


def entry_resource(entry: LadderEntry) -> dict[str, Any]:
    """An entry as its entrant and the page read it."""
    return {
        "game": entry.game,
        "player": entry.user.username,
        "is_bot": entry.user.is_bot,
        "status": entry.status,
        "paused_reason": entry.paused_reason or None,
        "seats": entry.seats,
        "options": entry.options,
        "time_controls": entry.time_controls,
        "max_concurrent": entry.max_concurrent,
        "rating": shown_rating(entry.mu, entry.sigma),
        "provisional": provisional(entry.sigma),
        "mu": round(entry.mu, 4),
        "sigma": round(entry.sigma, 4),
        # openskill's mu ± 2 sigma: where the entrant's strength lies, about 95% sure.
        "interval": [round(entry.mu - 2 * entry.sigma, 2), round(entry.mu + 2 * entry.sigma, 2)],
        "played": entry.played,
        "won": entry.won,
    }


def _crosstable(matches: list[LadderMatch], names: dict[int, str]) -> list[dict[str, Any]]:
    """Per pair of entrants who met: matches, the first's score (a place above the other
    counts 1, the same place 1/2) and its 95% Wilson interval."""
    played: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0])
    for row in matches:
        place = {seat: n for n, group in enumerate(row.ranking or []) for seat in group}
        for (i, a), (j, b) in combinations(enumerate(row.entries), 2):
            first, second, pi, pj = (a, b, i, j) if a < b else (b, a, j, i)
            here = played[(first, second)]
            here[0] += 1
            here[1] += 1.0 if place[pi] < place[pj] else 0.5 if place[pi] == place[pj] else 0.0
    rows = []
    for (a, b), (n, score) in sorted(played.items()):
        low, high = wilson(score, int(n))
        rows.append(
            {
                "player": names.get(a, "?"),
                "opponent": names.get(b, "?"),
                "matches": int(n),
                "score": score,
                "interval": [round(low, 3), round(high, 3)],
            }
        )
    return rows


def match_resource(row: LadderMatch, names: dict[int, str]) -> dict[str, Any]:
    return {
        "match_id": str(row.pk),
        "players": [names.get(pk, "?") for pk in row.entries],
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "ranking": row.ranking,
        "verified": row.verified,
        "transcript": transcript_url(row.pk),
    }


def ladder_board(game: str, *, recent: int = 50) -> dict[str, Any] | None:
    """The ladder of ``game`` (None for an unknown game)."""
    if get_engine(game) is None:
        return None
    entries = list(
        LadderEntry.objects.filter(game=game)
        .exclude(played=0, status=LadderEntry.Status.LEFT)
        .select_related("user")
    )
    entries.sort(key=lambda e: (-ordinal(e.mu, e.sigma), e.user.username))
    names = {e.pk: e.user.username for e in entries}
    names |= dict(LadderEntry.objects.filter(game=game).values_list("pk", "user__username"))
    recorded = list(
        LadderMatch.objects.filter(game=game, ranking__isnull=False).order_by("-finished_at")
    )
    checked = verification_of(game)
    return {
        "game": game,
        "entrants": [entry_resource(e) for e in entries],
        "crosstable": _crosstable(recorded, names),
        "matches": [match_resource(row, names) for row in recorded[:recent]],
        "verification": {
            "verified": checked.verified,
            "failed": checked.failed,
            "pending": checked.pending,
            "failures": [{"match_id": m, "problems": p} for m, p in checked.failures],
        },
    }
