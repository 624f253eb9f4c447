"""The operator console's side of the authorization matrix (tests/api/test_authorization_matrix.py).

Every console page and operator action of a match (abort, extend the deadline, force the
timeout, hand a seat to a bot, give it back; the match page's buttons and the changelist's bulk
actions), for anonymous, a logged-in player who is not staff, a staff user deactivated while
logged in, staff who may only view matches and an operator, in the open, active and finished
matches of the API matrix. Only an active operator may act; the others are sent to the login
page or refused with 403, and nothing changes. Each cell is one subtest in a savepoint rolled
back afterwards.

Leaks: everything the staff viewer and the operator read is read again in a second world in
which the creator's sealed bid differs, and must be the same HTML (CSRF tokens aside).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.admin import helpers
from django.contrib.auth.models import Permission
from django.db import transaction
from django.test import Client

from accounts.models import User
from tests.api.test_authorization_matrix import (
    PASSWORD,
    SEATED,
    STATES,
    WORLD_BIDS,
    World,
    build_world,
    fingerprint,
)
from tests.leaks import alternatives

CHANGELIST = "/admin/games/match/"
ANONYMOUS, PLAYER, DEACTIVATED_STAFF, VIEWER, OPERATOR = (
    "anonymous",
    "player",
    "deactivated_staff",
    "staff_viewer",
    "operator",
)
CONSOLE_ACTORS = (ANONYMOUS, PLAYER, DEACTIVATED_STAFF, VIEWER, OPERATOR)
LOCKED_OUT = (ANONYMOUS, PLAYER, DEACTIVATED_STAFF)
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
# What a clock holds now changes with the wall clock between the two worlds; that it does not
# depend on a sealed move is tests/admin/test_clock_console.py's.
_LEFT_NOW = re.compile(r'<td class="(?:left-now|age)">[^<]*</td>')

#: What each operation's form posts.
FORMS: dict[str, dict[str, Any]] = {
    "abort": {"reason": "matrix"},
    "extend": {"reason": "matrix", "seconds": 600},
    "force-timeout": {"reason": "matrix"},
    "replace-seat": {"reason": "matrix", "seat": 1, "bot": "greedy"},
    "return-seat": {"reason": "matrix", "seat": 1},
}
#: Where each operation applies, in the matrix's matches (elsewhere the form shows the refusal).
APPLIES = {
    "abort": {"open", "active"},
    "extend": {"active"},
    "force-timeout": {"active"},
    "replace-seat": {"active"},
    "return-seat": set(),  # no seat is played by a bot
}
BULK = {
    "abort_selected": "abort",
    "extend_selected": "extend",
    "force_timeout_selected": "force-timeout",
}


@dataclass(frozen=True)
class Expect:
    status: int
    login: bool = False  # a redirect to the admin login
    changes: bool = False


LOGIN = Expect(302, login=True)
PAGE = Expect(200)
FORBIDDEN = Expect(403)


@dataclass(frozen=True)
class Cell:
    name: str
    method: str
    path: str
    data: dict[str, Any] | None
    expect: Expect


def cells(world: World, actor: str) -> list[Cell]:
    found = [Cell("GET /admin/", "GET", "/admin/", None, LOGIN if actor in LOCKED_OUT else PAGE)]
    found.append(
        Cell("GET changelist", "GET", CHANGELIST, None, LOGIN if actor in LOCKED_OUT else PAGE)
    )
    for state in STATES:
        match_id = world.matches[state]
        base = f"{CHANGELIST}{match_id}/"
        for page in ("change", "history"):
            expect = LOGIN if actor in LOCKED_OUT else PAGE
            found.append(Cell(f"GET {page} | {state}", "GET", f"{base}{page}/", None, expect))
        for operation, form in FORMS.items():
            path = f"{base}operate/{operation}/"
            if actor in LOCKED_OUT:
                shown, done = LOGIN, LOGIN
            elif actor == VIEWER:
                shown, done = FORBIDDEN, FORBIDDEN
            elif state in APPLIES[operation]:
                shown, done = PAGE, Expect(302, changes=True)
            else:
                shown, done = PAGE, PAGE  # the form again, with the refusal
            found.append(Cell(f"GET operate/{operation} | {state}", "GET", path, None, shown))
            found.append(Cell(f"POST operate/{operation} | {state}", "POST", path, form, done))
        for action, operation in BULK.items():
            data = {
                "action": action,
                "apply": "1",
                "index": "0",
                helpers.ACTION_CHECKBOX_NAME: match_id,
                **FORMS[operation],
            }
            if actor in LOCKED_OUT:
                expect = LOGIN
            elif actor == VIEWER:
                expect = Expect(200)  # the changelist again: no such action for this user
            else:
                expect = Expect(302, changes=state in APPLIES[operation])
            found.append(Cell(f"POST action {action} | {state}", "POST", CHANGELIST, data, expect))
    return found


def console_clients(world: World) -> dict[str, Client]:
    clients = {ANONYMOUS: Client()}
    player = Client()
    player.force_login(world.players[SEATED].user)
    clients[PLAYER] = player
    gone = User.objects.create_superuser("gone-staff", "gone@example.com", PASSWORD)
    clients[DEACTIVATED_STAFF] = Client()
    clients[DEACTIVATED_STAFF].force_login(gone)
    User.objects.filter(pk=gone.pk).update(is_active=False)
    viewer = User.objects.create_user("viewer-staff", password=PASSWORD, is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    clients[VIEWER] = Client()
    clients[VIEWER].force_login(viewer)
    clients[OPERATOR] = Client()
    clients[OPERATOR].force_login(world.players["operator"].user)
    return clients


class _Rollback(Exception):
    pass


def send(client: Client, cell: Cell) -> tuple[Any, bool]:
    """The cell's request in a savepoint rolled back afterwards; the answer, whether it changed
    the database."""
    box: list[tuple[Any, bool]] = []
    try:
        with transaction.atomic():
            before = fingerprint()
            if cell.method == "GET":
                response = client.get(cell.path)
            else:
                response = client.post(cell.path, cell.data)
            box.append((response, fingerprint() != before))
            raise _Rollback
    except _Rollback:
        pass
    return box[0]


def run_console(world: World, bid: int, subtests: Any | None) -> Callable[[], dict[str, str]]:
    """The creator seals ``bid``; then every actor, with fresh clients (a message left in one
    world's cookies must not show up in the next), sends every cell."""

    def run() -> dict[str, str]:
        clients = console_clients(world)
        active = world.matches["active"]
        assert world.players[SEATED].move(active, 2, {"card": bid}).status_code == 202
        pages: dict[str, str] = {}
        for actor, client in clients.items():
            for cell in cells(world, actor):
                name = f"{cell.name} | {actor}"
                if subtests is None:
                    response, _ = send(client, cell)
                else:
                    with subtests.test(msg=name):
                        response, changed = send(client, cell)
                        _check(cell, response, changed)
                if response.status_code == 200:
                    page = _CSRF.sub('value=""', response.content.decode())
                    pages[name] = _LEFT_NOW.sub("<td></td>", page)
        return pages

    return run


def _check(cell: Cell, response: Any, changed: bool) -> None:
    expect = cell.expect
    assert response.status_code == expect.status, (response.status_code, expect)
    if expect.status == 302:
        assert response["Location"].startswith("/admin/login/") == expect.login
    assert changed == expect.changes, "changed" if changed else "nothing changed"


def test_console_authorization_matrix(db: None, subtests: Any, settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"
    # The home page counts bot seats still to move this long after their step opened: at 0
    # the series' bot seat is late in both worlds, whatever the wall clock did in between.
    settings.FACEDOWN_BOT_STALL_SECONDS = 0
    world = build_world()
    first, second = alternatives(
        run_console(world, WORLD_BIDS[0], subtests),
        run_console(world, WORLD_BIDS[1], None),
    )
    assert set(first) == set(second)
    assert len(first) > 40
    for name, html in first.items():
        with subtests.test(msg=f"leak: {name}"):
            assert html == second[name], "the page depends on the sealed bid"
