"""The web client's "Report" control: on a match page and another player's profile for a
signed-in player (never on one's own profile, never for a visitor), and its script served."""

from __future__ import annotations

from django.test import Client

from tests.players import Player, start_match


def test_the_report_control_shows_where_it_should(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    signed_in = Client()
    signed_in.force_login(alice.user)
    match_page = signed_in.get(f"/matches/{match_id}").content.decode()
    assert 'id="report-match"' in match_page and "/assets/report.js" in match_page
    assert (
        'id="report-player" class="link" data-player="bob"'
        in signed_in.get("/players/bob").content.decode()
    )
    assert 'id="report-player"' not in signed_in.get("/players/alice").content.decode()
    visitor = Client()
    assert 'id="report-match"' not in visitor.get(f"/matches/{match_id}").content.decode()
    script = visitor.get("/assets/report.js")
    assert script.status_code == 200
    body = b"".join(script.streaming_content) if script.streaming else script.content
    assert b'api("POST", "/reports", body)' in body
