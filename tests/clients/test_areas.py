"""The client's areas beyond matches and challenges, against the live server: one call of each
kind a program makes (seeks, tournaments, chat and mutes, notification settings, vacation,
token rotation, leaderboards and profiles), each answer read back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from facedown_client import Client
from facedown_client.errors import NotFound

from tests.clients.conftest import PASSWORD

pytestmark = pytest.mark.usefixtures("transactional_db")


def test_seeks_tournaments_and_account_areas(registered: Callable[[], Client]) -> None:
    alice, bob = registered(), registered()
    alice_name, bob_name = alice.account.get()["username"], bob.account.get()["username"]

    assert alice.games.get("gops")["slug"] == "gops"
    assert "results" in alice.games.leaderboard("gops", bots=True)
    assert alice.players.get(bob_name)["player"] == bob_name

    seek = alice.seeks.create("gops", options={"num_cards": 3})
    assert alice.seeks.get(seek["id"])["id"] == seek["id"]
    alice.seeks.cancel(seek["id"])

    starts = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    tournament = alice.tournaments.create(
        "Autumn cup", "gops", format="round_robin", round_limit_seconds=3600, starts_at=starts,
        options={"num_cards": 3},
    )  # fmt: skip
    tournament_id = tournament["id"]
    assert bob.tournaments.join(tournament_id)["you"]["registered"] is True
    assert tournament_id in [t["id"] for t in bob.tournaments.list()["results"]]
    assert "rows" in bob.tournaments.standings(tournament_id)
    assert bob.tournaments.rounds(tournament_id) == []
    assert "standings" in alice.tournaments.export(tournament_id)
    assert bob_name in alice.tournaments.export(tournament_id, format="csv")
    assert bob.tournaments.withdraw(tournament_id)["you"]["registered"] is False

    match = alice.matches.create("gops", ["me", {"user": bob_name}], options={"num_cards": 3})
    bob.matches.join(match["id"])
    said = alice.chat.say(match["id"], "good luck")
    assert [m["text"] for m in bob.chat.messages(match["id"])["results"]] == ["good luck"]
    assert said["text"] == "good luck"
    assert alice_name in bob.chat.mute(alice_name)["muted"]
    assert alice_name in bob.chat.mutes()["muted"]

    settings = alice.notifications.update(email_your_move=False)
    assert settings["email_your_move"] is False
    assert alice.notifications.settings()["email_your_move"] is False
    assert alice.account.vacation()["on_vacation"] is False
    assert alice.substitutes.list()["results"] == []

    old = alice.token
    alice.tokens.rotate(PASSWORD)
    assert alice.token != old and alice.account.get()["username"] == alice_name
    with pytest.raises(NotFound):
        alice.tournaments.get("00000000-0000-0000-0000-000000000000")
    with pytest.warns(DeprecationWarning, match=r"client\.account\.get\(\)"):
        assert alice.me()["username"] == alice_name  # the first client's flat name
