"""A turn-based game in the browser: Memory against a bot through the generic renderer, played
to the end by clicking tiles; a face-down tile never shows its card."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from accounts.models import User
from games.models import Match
from games.services.matches import SeatSpec, match_create
from tests.web.conftest import log_in, shot

pytestmark = pytest.mark.slow

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")


def _finish_through_the_services(match_id: str, player: User) -> None:
    """Play the human's remaining flips server-side (the bot answers on the worker thread)."""
    import contextlib
    import time

    from core.errors import FacedownError
    from games.catalog import get_engine
    from games.services.moves import move_submit

    engine = get_engine("memory")
    assert engine is not None
    for _ in range(500):
        match = Match.objects.get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            return
        if match.acting_mask & 1 and match.state is not None:
            move = engine.legal_moves(match.state, 0)[0]
            with contextlib.suppress(FacedownError):  # the match moved on meanwhile: read again
                move_submit(match_id=match_id, user=player, step=match.step, move=move)
        else:
            time.sleep(0.02)
    raise AssertionError("the match did not finish")


def test_memory_against_a_bot_through_the_generic_page(
    new_page: Callable[..., Page], embedded_worker: None, user: Callable[[str], User]
) -> None:
    dora = user("dora")
    match = match_create(
        creator=dora,
        game="memory",
        seats=[SeatSpec("me"), SeatSpec("bot", bot="random")],
        options={"pairs": 6, "another_turn_on_pair": False},
    )
    page = new_page()
    log_in(page, "dora")
    page.goto(f"/matches/{match.id}")
    flips = 0
    for _ in range(200):
        if flips >= 6 or Match.objects.get(pk=match.id).status == Match.Status.FINISHED:
            break
        hidden = page.eval_on_selector_all(
            ".grid-board .tile.back", "tiles => tiles.map(t => t.textContent.trim())"
        )
        assert all(text == "" for text in hidden)  # a face-down tile shows nothing
        playable = page.locator(".grid-board button.playable:not([disabled])")
        if playable.count():
            try:
                playable.first.click(timeout=2000)
            except Exception:  # the board re-rendered under the click: look again
                continue
            flips += 1
            if flips == 3:
                shot(page, "memory-mid-game")
        page.wait_for_timeout(100)
    assert flips >= 6 or Match.objects.get(pk=match.id).status == Match.Status.FINISHED
    _finish_through_the_services(str(match.id), dora)
    page.reload()
    page.locator("#result:not([hidden])").wait_for()
    shot(page, "memory-result")
