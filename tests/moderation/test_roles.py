"""The role matrix: every moderation console action for anonymous, a player, a moderator, an
operator and a superuser. Allowed: the action happens (and is logged); refused: nothing
changes. A moderator cannot operate a match; an operator cannot read reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from accounts.tokens import token_issue
from moderation.models import ModerationLogEntry, Report, Sanction, StaffNote
from moderation.reports import report_file
from moderation.sanctions import sanction_impose
from tests.moderation.conftest import console_of, staff_member
from tests.players import Player, make_player, start_match

ROLES = ("anonymous", "player", "moderator", "operator", "superuser")
MODERATION = {"moderator", "superuser"}


@dataclass
class World:
    report: Report
    sanction: Sanction
    troll: User

    def match(self) -> str:
        """A running match of the troll (made only for the match row: it takes time)."""
        reporter = Player(User.objects.get(username="reporter"), token_issue_for("reporter"))
        troll = Player(self.troll, token_issue_for("troll"))
        return start_match("gops", [reporter, troll], options={"num_cards": 3})


@pytest.fixture
def world(db: None) -> World:
    boss = User.objects.create_superuser("boss", "b@example.com", "correct-horse-battery")
    reporter, troll = make_player("reporter"), make_player("troll")
    filing = report_file(reporter=reporter.user, kind="player", reason="abuse", player="troll")
    sanction = sanction_impose(staff=boss, user=troll.user, kind="chat_mute", reason="Rude")
    return World(filing.report, sanction, troll.user)


def token_issue_for(name: str) -> str:
    return token_issue(User.objects.get(username=name), name="tests")[1]


def client_of(role: str) -> Client:
    if role == "anonymous":
        return Client()
    if role == "player":
        return console_of(User.objects.create_user("someone", password="correct-horse-battery"))
    if role == "superuser":
        return console_of(User.objects.get(username="boss"))
    return console_of(
        staff_member(role, {"moderator": "moderators", "operator": "operators"}[role])
    )


Check = Callable[[World], bool]


@dataclass(frozen=True)
class Action:
    method: str
    url: Callable[[World], str]
    allowed: frozenset[str]
    data: dict[str, Any] | None = None
    done: Check | None = None


def _state(state: str) -> Check:
    return lambda w: Report.objects.get(pk=w.report.pk).state == state


ACTIONS: dict[str, Action] = {
    "report_queue": Action("get", lambda w: "/admin/moderation/report/", frozenset(MODERATION)),
    "report_page": Action(
        "get", lambda w: f"/admin/moderation/report/{w.report.pk}/change/", frozenset(MODERATION)
    ),
    "report_take": Action(
        "post",
        lambda w: f"/admin/moderation/report/{w.report.pk}/operate/take/",
        frozenset(MODERATION),
        {},
        _state("in_progress"),
    ),
    "report_dismiss": Action(
        "post",
        lambda w: f"/admin/moderation/report/{w.report.pk}/operate/close/",
        frozenset(MODERATION),
        {"state": "dismissed", "reason": "Nothing"},
        _state("dismissed"),
    ),
    "report_sanction": Action(
        "post",
        lambda w: f"/admin/moderation/report/{w.report.pk}/operate/sanction/",
        frozenset(MODERATION),
        {"username": "troll", "kind": "warn", "reason": "Watch it", "duration": ""},
        lambda w: Sanction.objects.filter(kind="warn", report=w.report).exists(),
    ),
    "sanction_impose": Action(
        "post",
        lambda w: "/admin/moderation/sanction/operate/impose/",
        frozenset(MODERATION),
        {"username": "troll", "kind": "suspend", "reason": "Abandons", "duration": "24"},
        lambda w: Sanction.objects.filter(kind="suspend").exists(),
    ),
    "sanction_close_account": Action(
        "post",
        lambda w: "/admin/moderation/sanction/operate/impose/",
        frozenset(MODERATION),
        {"username": "troll", "kind": "close", "reason": "Cheating ring", "duration": ""},
        lambda w: not User.objects.get(pk=w.troll.pk).is_active,
    ),
    "sanction_lift": Action(
        "post",
        lambda w: f"/admin/moderation/sanction/{w.sanction.pk}/operate/lift/",
        frozenset(MODERATION),
        {"reason": "Enough"},
        lambda w: Sanction.objects.get(pk=w.sanction.pk).lifted_at is not None,
    ),
    "staff_note_add": Action(
        "post",
        lambda w: "/admin/moderation/staffnote/add/",
        frozenset(MODERATION),
        {"user": "", "text": "Watch this one"},
        lambda w: StaffNote.objects.filter(user=w.troll, text="Watch this one").exists(),
    ),
    "log_read": Action(
        "get",
        lambda w: "/admin/moderation/moderationlogentry/",
        frozenset({"moderator", "operator", "superuser"}),
    ),
    # The operators' side: a moderator cannot abort a match (games.change_match).
    "match_abort_page": Action(
        "get",
        lambda w: f"/admin/games/match/{w.match()}/operate/abort/",
        frozenset({"operator", "superuser"}),
    ),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", list(ACTIONS))
def test_role_matrix(world: World, role: str, name: str) -> None:
    action = ACTIONS[name]
    client = client_of(role)
    data = dict(action.data or {})
    if "user" in data:
        data["user"] = str(world.troll.pk)
    logged = ModerationLogEntry.objects.count()
    if action.method == "get":
        answer = client.get(action.url(world))
    else:
        answer = client.post(action.url(world), data)
    if role in action.allowed:
        expected = 200 if action.method == "get" else 302
        assert answer.status_code == expected, answer.content.decode()[:3000]
        if action.done is not None:
            assert action.done(world)
            assert ModerationLogEntry.objects.count() > logged
        return
    if role in ("anonymous", "player"):
        assert answer.status_code == 302 and "/login/" in answer["Location"]
    else:
        assert answer.status_code == 403
    if action.done is not None:
        assert not action.done(world)
        assert ModerationLogEntry.objects.count() == logged
