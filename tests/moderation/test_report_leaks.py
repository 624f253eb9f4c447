"""No hidden information on a report's evidence or its console pages: two worlds that differ
only in the card seat 0 sealed in the open step give the same evidence and the same pages
(ids, times and CSRF tokens aside), and neither holds the seed or the stock's order."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from django.test import Client

from accounts.models import User
from games.models import Match
from moderation.evidence import evidence_html
from moderation.models import Report
from moderation.reports import report_file
from tests.leaks import alternatives
from tests.players import Player, start_match

WHEN = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
# Rows made in each world get their own ids (a rolled-back savepoint keeps the sequences).
_ids = re.compile(r'(?<=/report/)\d+|(?<=value=")\d+(?=")|(?<=id_filings-)\d+')


def _pages(console: Client, alice: Player, match_id: str) -> dict[str, str]:
    kinds = {
        "match": {"match": match_id},
        "player": {"player": "bob", "match": match_id},
        "chat_message": {"match": match_id, "seq": 1},
    }
    pages: dict[str, str] = {}
    for kind, where in kinds.items():
        filing = report_file(reporter=alice.user, kind=kind, reason="other", now=WHEN, **where)
        report = Report.objects.get(pk=filing.report_id)
        pages[f"{kind}:evidence"] = repr(report.evidence)
        pages[f"{kind}:html"] = str(evidence_html(report))
        for name, url in (
            ("page", f"/admin/moderation/report/{report.pk}/change/"),
            ("sanction", f"/admin/moderation/report/{report.pk}/operate/sanction/"),
        ):
            answer = console.get(url)
            assert answer.status_code == 200, answer.status_code
            html = _CSRF.sub("", answer.content.decode())
            pages[f"{kind}:{name}"] = _ids.sub("ID", html)
    queue = console.get("/admin/moderation/report/")
    assert queue.status_code == 200
    listed = _CSRF.sub("", queue.content.decode())
    pages["queue"] = _ids.sub("ID", re.sub(r">\d+<", "><", listed))
    return pages


def test_report_evidence_and_pages_hide_a_sealed_card(
    alice: Player, bob: Player, carol: Player
) -> None:
    console = Client()
    console.force_login(User.objects.create_superuser("boss", "b@example.com", "pw-pw-pw-pw"))
    match_id = start_match("gops", [alice, bob, carol], options={"num_cards": 13})
    bob.post(f"/matches/{match_id}/chat", {"text": "watch this"})
    for player, card in ((alice, 1), (bob, 2), (carol, 3)):
        assert player.move(match_id, 1, {"card": card}).status_code == 202
    assert bob.move(match_id, 2, {"card": 5}).status_code == 202

    def world(card: int) -> Callable[[], dict[str, str]]:
        def run() -> dict[str, str]:
            assert alice.move(match_id, 2, {"card": card}).status_code == 202
            return _pages(console, alice, match_id)

        return run

    high, low = alternatives(world(13), world(4))
    for page in high:
        assert high[page] == low[page], page
    match = Match.objects.get(pk=match_id)
    assert match.state is not None
    stock = [str(n) for n in match.state["stock"]]
    for page, html in high.items():
        assert match.seed not in html, page
        assert ", ".join(stock) not in html, page
