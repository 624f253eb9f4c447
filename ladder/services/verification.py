"""The periodic check anyone could run: each finished ladder match's transcript (the one
``GET /matches/{id}/audit`` serves) through the standalone verifier (``games.verify``), with
the server's own keys, current and retired, as the trusted ones. The verdict is kept on the
``LadderMatch``: the ladder page and the console show the counts and every failure."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from games.services.audit import audit_transcript
from games.signing import public_keys
from games.verify import verify_transcript
from ladder.models import LadderMatch


def ladder_verify(*, limit: int = 200) -> int:
    """Verify up to ``limit`` recorded ladder matches not verified yet; returns how many."""
    keys = list(public_keys().values())
    pending = LadderMatch.objects.filter(finished_at__isnull=False, verified__isnull=True)
    done = 0
    for match_id in pending.order_by("finished_at").values_list("pk", flat=True)[:limit]:
        report = verify_transcript(audit_transcript(match_id=match_id), public_keys=keys)
        problems = "" if report.ok else report.verdict()
        LadderMatch.objects.filter(pk=match_id).update(verified=report.ok, verify_problems=problems)
        done += 1
    return done


@dataclass(frozen=True)
class Verification:
    verified: int
    failed: int
    pending: int
    #: (match id, the verifier's verdict) of every failure, newest first.
    failures: list[tuple[str, str]]


def verification_of(game: str | None = None) -> Verification:
    rows = LadderMatch.objects.filter(finished_at__isnull=False)
    if game is not None:
        rows = rows.filter(game=game)
    counts = rows.aggregate(
        ok=Count("pk", filter=Q(verified=True)),
        bad=Count("pk", filter=Q(verified=False)),
        waiting=Count("pk", filter=Q(verified__isnull=True)),
    )
    failures = rows.filter(verified=False).order_by("-finished_at")[:20]
    return Verification(
        verified=counts["ok"],
        failed=counts["bad"],
        pending=counts["waiting"],
        failures=[(str(f.pk), f.verify_problems) for f in failures],
    )
