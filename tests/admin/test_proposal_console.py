"""The operator console shows a match's proposals (the open one and the latest closed ones),
filters the matches paused now, and finds overdue matches by the public deadline, never by the
sweep's own (which a sealed move can change)."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from games.models import Match
from games.time_controls import iso
from tests.players import Player, start_match

CHANGELIST = "/admin/games/match/"
DAY = 86_400
CORRESPONDENCE = {"kind": "per_step", "per_step_seconds": 3 * DAY}


def _proposals(console: Client, match_id: str) -> str:
    response = console.get(f"{CHANGELIST}{match_id}/change/")
    assert response.status_code == 200, response.content
    html = response.content.decode()
    start = html.index('<table class="proposals">')
    return html[start : html.index("</table>", start)]


def _listed(console: Client, query: str) -> str:
    response = console.get(f"{CHANGELIST}?{query}")
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_proposals_and_the_paused_filter(console: Client, alice: Player, bob: Player) -> None:
    match_id = start_match(
        "gops", [alice, bob], options={"num_cards": 3}, time_control=CORRESPONDENCE
    )
    other = start_match("gops", [alice, bob], options={"num_cards": 3})
    until = timezone.now() + timedelta(days=5)
    made = alice.post(f"/matches/{match_id}/proposals", {"kind": "pause", "until": iso(until)})
    assert made.status_code == 201, made.content
    pause = made.json()
    table = _proposals(console, match_id)
    assert f"<td>{pause['id']}</td><td>pause</td><td>0: alice</td>" in table
    assert f"<td>{pause['until']}</td><td>open</td><td>0: alice</td>" in table
    assert _listed(console, "paused=yes").count(f"{CHANGELIST}{match_id}/change/") == 0

    answered = bob.post(f"/matches/{match_id}/proposals/{pause['id']}/accept")
    assert answered.status_code == 200 and answered.json()["status"] == "accepted"
    abort = alice.post(f"/matches/{match_id}/proposals", {"kind": "abort"}).json()
    assert bob.post(f"/matches/{match_id}/proposals/{abort['id']}/decline").status_code == 200
    table = _proposals(console, match_id)
    # Newest first: the declined abort, then the accepted pause, both with who answered.
    assert table.index("<td>abort</td>") < table.index("<td>pause</td>")
    assert "<td>declined</td><td>0: alice</td>" in table and "<td>1: bob</td></tr>" in table
    assert "<td>accepted</td><td>0: alice, 1: bob</td>" in table

    paused = _listed(console, "paused=yes")
    assert f"{CHANGELIST}{match_id}/change/" in paused
    assert f"{CHANGELIST}{other}/change/" not in paused
    running = _listed(console, "paused=no")
    assert f"{CHANGELIST}{other}/change/" in running
    assert f"{CHANGELIST}{match_id}/change/" not in running


def test_overdue_goes_by_the_public_deadline(console: Client, alice: Player, bob: Player) -> None:
    match_id = start_match(
        "gops",
        [alice, bob],
        options={"num_cards": 3},
        time_control=CORRESPONDENCE,
        disclose_submitted=False,
    )
    link = f"{CHANGELIST}{match_id}/change/"
    assert alice.move(match_id, 1, {"card": 1}).status_code == 202
    # The sweep's own deadline passed (as if a sealed move had brought it forward), the public
    # one has not: the filter does not answer from the row's.
    Match.objects.filter(pk=match_id).update(deadline=timezone.now() - timedelta(minutes=1))
    assert link not in _listed(console, "overdue=yes")
    assert link in _listed(console, "overdue=no")

    # Both clocks started four days ago: the public deadline passed too, whatever the row says.
    match = Match.objects.get(pk=match_id)
    clocks = [{**clock, "since": iso(timezone.now() - timedelta(days=4))} for clock in match.clocks]
    Match.objects.filter(pk=match_id).update(
        clocks=clocks, deadline=timezone.now() + timedelta(days=1)
    )
    assert link in _listed(console, "overdue=yes")
    assert link not in _listed(console, "overdue=no")
