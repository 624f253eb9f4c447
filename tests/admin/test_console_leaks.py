"""The console never reveals a sealed move, the stock order, or the seed of a running match.

Each world is played in a savepoint rolled back afterwards (``tests.leaks.alternatives``), so
two worlds differ only in the card seat 0 submitted: every console page must render the same
HTML in both (CSRF tokens aside).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.admin import helpers
from django.test import Client

from games.models import Match, Move
from tests.leaks import alternatives
from tests.players import Player, start_match

CHANGELIST = "/admin/games/match/"
OPERATIONS = ("abort", "extend", "force-timeout", "replace-seat", "return-seat")
CASES = [
    ("gops", {}),
    ("hols-der-geier", {}),
    ("hols-der-geier", {"history": "table_only"}),
]
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
# What a clock holds now changes with the wall clock between the two worlds; that it does not
# depend on a sealed move is tests/admin/test_clock_console.py's.
_LEFT_NOW = re.compile(r'<td class="(?:left-now|age)">[^<]*</td>')


def _html(response: Any) -> str:
    assert response.status_code == 200, (response.status_code, response.content[:500])
    page = _CSRF.sub('name="csrfmiddlewaretoken" value=""', response.content.decode())
    return _LEFT_NOW.sub("<td></td>", page)


def _console_pages(console: Client, match_id: str) -> dict[str, str]:
    """Every console page that shows something of the match."""
    seated = Match.objects.get(pk=match_id).seats.values_list("user_id", flat=True)
    pages = {
        "home": _html(console.get("/admin/")),
        **{
            f"user {user_id}": _html(console.get(f"/admin/accounts/user/{user_id}/change/"))
            for user_id in seated
        },
        "changelist": _html(console.get(CHANGELIST)),
        "changelist_active": _html(console.get(CHANGELIST + "?status=active&has_bots=no")),
        "search": _html(console.get(CHANGELIST + "?q=alice")),
        "change": _html(console.get(f"{CHANGELIST}{match_id}/change/")),
        "history": _html(console.get(f"{CHANGELIST}{match_id}/history/")),
        "action_form": _html(
            console.post(
                CHANGELIST,
                {"action": "extend_selected", "index": "0", helpers.ACTION_CHECKBOX_NAME: match_id},
            )
        ),
    }
    for operation in OPERATIONS:
        pages[operation] = _html(console.get(f"{CHANGELIST}{match_id}/operate/{operation}/"))
    return pages


def _numbers(html: str) -> list[int]:
    return [int(token) for token in re.findall(r"-?\d+", re.sub(r"<[^>]*>", " ", html))]


def _contains_run(numbers: list[int], run: list[int]) -> bool:
    """Whether ``run`` appears in ``numbers`` as consecutive numbers, however formatted."""
    return any(numbers[i : i + len(run)] == run for i in range(len(numbers) - len(run) + 1))


def _stock(match_id: str) -> list[int]:
    """The prizes still to come, in the order they will be turned up."""
    match = Match.objects.get(pk=match_id)
    assert match.state is not None
    stock = list(match.state["stock"])
    assert len(stock) >= 10 and stock != sorted(stock)
    return stock


@pytest.mark.parametrize("disclose", [True, False], ids=["disclosed", "undisclosed"])
@pytest.mark.parametrize(
    ("game", "options"), CASES, ids=["gops", "hols-der-geier", "hols-table-only"]
)
def test_an_unresolved_sealed_card_is_invisible_in_the_console(
    game: str,
    options: dict[str, Any],
    disclose: bool,
    console: Client,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    match_id = start_match(
        game,
        [alice, bob, carol],
        options=options,
        disclose_submitted=disclose,
        time_control={"per_step_seconds": 3600, "on_timeout": "auto_move"},
    )
    # one resolved step, so the history (or table-only piles) is not empty
    for player, card in ((alice, 1), (bob, 2), (carol, 3)):
        assert player.move(match_id, 1, {"card": card}).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2
    assert bob.move(match_id, 2, {"card": 5}).status_code == 202
    before = _console_pages(console, match_id)

    def world(card: int) -> Callable[[], dict[str, str]]:
        def run() -> dict[str, str]:
            assert alice.move(match_id, 2, {"card": card}).status_code == 202
            assert Move.objects.get(match_id=match_id, step=2, seat=0).payload == {"card": card}
            return _console_pages(console, match_id)

        return run

    high, low = alternatives(world(13), world(4))
    for page in high:
        assert high[page] == low[page], page
        if not disclose:
            # nothing anyone reads changes until the step resolves: not even the console
            assert high[page] == before[page], page
    seed, stock = Match.objects.get(pk=match_id).seed, _stock(match_id)
    for page, html in high.items():
        assert seed not in html, page
        assert not _contains_run(_numbers(html), stock), page
    # the sealed moves of the open step are never rendered in any form
    assert "payload" not in high["change"] and "commitment" not in high["change"]
    assert '"card": 5' not in high["change"]


@pytest.mark.parametrize(
    "query",
    [
        "seed__startswith=a",
        "state__hands__1__contains=13",
        "seed_sha256__startswith=0",
        "moves__payload__contains=1",
        "id__startswith=0",
    ],
)
def test_the_changelist_cannot_filter_on_secret_fields(console, alice, bob, query):
    from tests.players import start_match

    start_match("gops", [alice, bob])
    answer = console.get(f"/admin/games/match/?{query}")
    assert answer.status_code == 400
    assert console.get("/admin/games/match/?status__exact=active").status_code == 200
    assert console.get("/admin/games/match/?game__exact=gops").status_code == 200
