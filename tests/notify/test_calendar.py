"""The deadline calendar: one event per match waiting for the user, read with a calendar
library; the key is the credential and can be reset."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from icalendar import Calendar
from rest_framework.test import APIClient

from games.models import Match
from tests.players import Player, start_match

TIMED = {"per_step_seconds": 3600, "on_timeout": "auto_move"}
GOPS3 = {"options": {"num_cards": 3}}


def _feed_path(player: Player) -> str:
    url = urlsplit(player.get("/accounts/me/notifications").json()["calendar_url"])
    return f"{url.path}?{url.query}"


def test_the_feed_lists_each_waiting_deadline(
    settings: Any, alice: Player, bob: Player, carol: Player
) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"
    timed = start_match("gops", [alice, bob], **GOPS3, time_control=TIMED)
    start_match("gops", [alice, carol], **GOPS3)  # untimed: no deadline to show
    played = start_match("gops", [alice, carol], **GOPS3, time_control=TIMED)
    alice.move(played, 1, {"card": 1})  # waits for carol, not for alice

    answer = APIClient().get(_feed_path(alice))
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/calendar")
    calendar = Calendar.from_ical(answer.content)
    (event,) = calendar.walk("VEVENT")
    deadline = Match.objects.get(pk=timed).deadline
    assert event.decoded("dtend") == deadline.replace(microsecond=0)  # iCalendar has seconds
    assert str(event["url"]).endswith(f"/matches/{timed}")
    assert str(event["summary"]) == "Your move: gops, step 1"
    assert "card" not in answer.content.decode().lower()

    carol_events = Calendar.from_ical(APIClient().get(_feed_path(carol)).content).walk("VEVENT")
    assert len(carol_events) == 1 and str(carol_events[0]["url"]).endswith(played)


def test_a_reset_key_retires_the_old_feed(alice: Player) -> None:
    old = _feed_path(alice)
    reset = alice.post("/accounts/me/calendar-key")
    assert reset.status_code == 200
    new = urlsplit(reset.json()["calendar_url"])
    gone = APIClient().get(old)
    assert gone.status_code == 404 and gone.json()["code"] == "not_found"
    assert APIClient().get(f"{new.path}?{new.query}").status_code == 200
    assert APIClient().get("/api/v1/accounts/me/deadlines.ics?key=").status_code == 404


@pytest.mark.parametrize(
    "key", ["%00", "abc%00def", quote("é") * 4, "k" * 65, "k" * 5000, "a+b/c=", "%0A", "%7F"]
)
def test_a_malformed_key_is_the_calendars_not_found(alice: Player, key: str) -> None:
    client = APIClient(raise_request_exception=False)
    answer = client.get(f"/api/v1/accounts/me/deadlines.ics?key={key}")
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_the_feed_is_in_its_owners_language(settings: Any, alice: Player, bob: Player) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"
    alice.user.language = "de"
    alice.user.save(update_fields=["language"])
    start_match("gops", [alice, bob], **GOPS3, time_control=TIMED)
    answer = APIClient().get(_feed_path(alice), HTTP_ACCEPT_LANGUAGE="en")
    calendar = Calendar.from_ical(answer.content)
    assert str(calendar["x-wr-calname"]) == "Facedown: deine Züge"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == "Dein Zug: gops, Schritt 1"
    assert str(event["description"]).startswith("Fällig ")
