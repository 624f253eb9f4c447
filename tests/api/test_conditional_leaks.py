"""Conditional moves are sealed like a move: two worlds that differ only in one seat's rules
read byte for byte the same for every other seat (a player, a bot account), a spectator and
the operator console, and a rule that was never played is absent from the audit transcript
and the account export once the match is over."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.models import ConditionalMoves
from games.services.conditional import conditional_moves_play
from games.services.moves import move_submit
from tests.leaks import RECEIPT_KEYS, alternatives, reading
from tests.players import Player, make_player, start_match

PATH = "/api/v1/matches/{}/conditional-moves"
#: Conditional moves are offered in correspondence matches (a day or more per step).
DAILY = {"per_step_seconds": 86400}
RULES = [{"pot": [1, 2], "card": 4}, {"pot": None, "card": 1}]


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _console(match_id: str) -> dict[str, str]:
    """The operator console's pages of the match, less what changes per request (CSRF tokens,
    each clock's time left and the home page's oldest queued task's age, both as of the wall
    clock)."""
    operator = User.objects.filter(username="cond-operator").first()
    if operator is None:
        operator = User.objects.create_superuser("cond-operator", "o@example.com", "x" * 12)
    client = Client()
    client.force_login(operator)
    pages = {}
    for url in (f"/admin/games/match/{match_id}/change/", "/admin/games/match/", "/admin/"):
        page = client.get(url)
        assert page.status_code == 200, url
        html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page.content.decode())
        pages[url] = re.sub(r'<td class="(?:left-now|age)">[^<]*</td>', "", html)
    return pages


def _readers(match_id: str, readers: list[Player]) -> dict[str, Any]:
    seen: dict[str, Any] = {who.name: reading(who, match_id) for who in readers}
    seen["console"] = _console(match_id)
    return seen


def test_the_console_has_no_page_for_rules() -> None:
    assert not admin.site.is_registered(ConditionalMoves)


@pytest.mark.parametrize("disclose", [True, False])
def test_setting_rules_changes_nothing_anyone_reads(
    disclose: bool,
    alice: Player,
    bob: Player,
    carol: Player,
    django_capture_on_commit_callbacks: Any,
) -> None:
    robot = make_player(bot=True)
    match_id = start_match(
        "gops",
        [alice, bob, robot],
        options={"num_cards": 5},
        disclose_submitted=disclose,
        time_control=DAILY,
    )
    readers = [alice, bob, robot, carol]  # the owner's own match reads do not show them either

    def world(rules: bool) -> dict[str, Any]:
        if rules:
            with django_capture_on_commit_callbacks() as work:
                put = alice.client.put(PATH.format(match_id), {"rules": RULES}, format="json")
            assert put.status_code == 200
            # The one piece of work the change leaves is the job: no event, so nothing is
            # published on a stream, notified, mailed, pushed or sent to a webhook.
            assert len(work) == 1
        return _readers(match_id, readers)

    with_rules, without = alternatives(lambda: world(True), lambda: world(False))
    assert with_rules == without


@pytest.mark.parametrize("disclose", [True, False])
def test_a_played_rule_reads_like_a_fast_player(
    disclose: bool, alice: Player, bob: Player, carol: Player
) -> None:
    robot = make_player(bot=True)
    match_id = start_match(
        "gops",
        [alice, bob, robot],
        options={"num_cards": 5, "prize_order": "ascending"},
        disclose_submitted=disclose,
        time_control=DAILY,
    )
    others = [bob, robot, carol]

    def by_rule() -> dict[str, Any]:
        assert alice.client.put(PATH.format(match_id), {"rules": RULES}, format="json")
        assert conditional_moves_play(match_id=match_id, step=1) == 1
        return _readers(match_id, others)

    def by_hand() -> dict[str, Any]:
        assert alice.move(match_id, 1, {"card": 4}).status_code == 202
        return _readers(match_id, others)

    ruled, played = alternatives(by_rule, by_hand)
    assert ruled == played


def _strip(value: Any) -> Any:
    """A JSON value without receipts (salted afresh in every world) or export times."""
    if isinstance(value, dict):
        return {
            key: _strip(item)
            for key, item in value.items()
            if key not in RECEIPT_KEYS and key != "exported_at"
        }
    if isinstance(value, list):
        return [_strip(item) for item in value]
    return value


def test_a_rule_never_played_is_absent_from_the_transcript_and_the_export(
    alice: Player, bob: Player
) -> None:
    match_id = start_match(
        "gops",
        [alice, bob],
        options={"num_cards": 3, "prize_order": "ascending"},
        time_control=DAILY,
    )
    t0 = timezone.now()

    def world(rules: bool) -> dict[str, Any]:
        if rules:  # a pot this match never shows: the rule is never played
            put = alice.client.put(
                PATH.format(match_id), {"rules": [{"pot": [6], "card": 3}]}, format="json"
            )
            assert put.status_code == 200
        for step in (1, 2):
            for i, player in enumerate((alice, bob)):
                now = t0 + timedelta(minutes=10 * step + i)
                move_submit(
                    match_id=match_id, user=player.user, step=step, move={"card": step}, now=now
                )
        assert not ConditionalMoves.objects.filter(match_id=match_id).exists()
        audit = alice.get(f"/matches/{match_id}/audit")
        assert audit.status_code == 200
        exports = [who.get("/accounts/me/export").json() for who in (alice, bob)]
        return {"audit": _strip(audit.json()), "exports": _strip(exports)}

    with_rules, without = alternatives(lambda: world(True), lambda: world(False))
    assert with_rules["audit"]["result"] is not None
    assert with_rules == without
