"""End to end in headless Chromium: sign up, play GOPS against a bot by clicking cards, two
humans at Hols der Geier who never see each other's card before the reveal, commit-reveal done
by the browser, and the replay of a finished match. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, Request, expect

from games.models import Match, Move
from tests.players import make_player, play_to_end, start_match
from tests.web.conftest import PASSWORD, log_in, shot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NewPage = Callable[..., Page]
OVER_OR_MY_MOVE = """() => {
    const status = document.querySelector('#status-line').textContent;
    return status.startsWith('Match over') ||
        document.querySelector('#hand button.playable:not([disabled])') !== null;
}"""


def create_match(
    page: Page,
    game: str,
    *,
    options: dict[str, str] | None = None,
    invite: str | None = None,
    protocol: str = "sealed",
    screenshot: str | None = None,
) -> str:
    page.goto("/")
    page.locator("#game").select_option(game)
    for name, value in (options or {}).items():
        page.locator(f"#opt-{name}").fill(value)
    if invite:
        second = page.locator("#seats li").nth(1)
        second.locator(".seat-kind").select_option("user")
        second.locator(".seat-user").fill(invite)
    page.locator("#protocol").select_option(protocol)
    if screenshot:
        shot(page, screenshot)
    page.get_by_role("button", name="Create match").click()
    page.wait_for_url(re.compile(r"/matches/[0-9a-f-]{36}$"))
    return page.url.rsplit("/", 1)[1]


def is_over(page: Page) -> bool:
    page.wait_for_function(OVER_OR_MY_MOVE)
    return page.locator("#status-line").inner_text().startswith("Match over")


def click_first_card(page: Page) -> int:
    card = page.locator("#hand button.playable:not([disabled])").first
    value = int(card.get_attribute("data-card") or "0")
    card.click()
    return value


def play_to_the_end(page: Page, *, on_reveal: Callable[[], None] | None = None) -> int:
    """Click the first playable card until the match is over; returns the cards played."""
    for played in range(20):
        if is_over(page):
            return played
        step = page.locator("#match-meta").inner_text()
        click_first_card(page)
        if played == 0 and on_reveal:
            # Every card of step 1 turns over together once the bot has answered.
            page.locator("#table .flip").first.wait_for()
            on_reveal()
        page.wait_for_function(
            "(before) => document.querySelector('#match-meta').textContent !== before",
            arg=step,
        )
    raise AssertionError("the match did not end")


def test_sign_up_and_play_gops_against_a_bot(new_page: NewPage, embedded_worker: None) -> None:
    page = new_page()
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login\?next=/$"))
    page.get_by_role("link", name="Create an account").click()
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/")
    expect(page.locator("#whoami")).to_have_text("dora")
    expect(page.locator("#mine-status")).to_contain_text("No matches yet")

    match_id = create_match(page, "gops", options={"num_cards": "4"}, screenshot="lobby-create")
    expect(page.locator("#match-title")).to_have_text("GOPS")
    expect(page.locator("#status-line")).to_have_text("Your move: pick a card.")
    expect(page.locator("#hand button")).to_have_count(4)
    expect(page.locator("#prize .pot .card")).to_have_count(1)

    def revealed() -> None:
        shot(page, "match-reveal-turning")  # mid-turn: every card turns over together
        expect(page.locator("#table .flip.revealed")).to_have_count(2)
        time.sleep(0.8)  # the turn takes 0.7 s
        shot(page, "match-reveal")

    played = play_to_the_end(page, on_reveal=revealed)
    assert played == 3  # the fourth, forced step is played by the server
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result")).to_contain_text("dora")
    expect(page.locator("#history tbody tr")).to_have_count(4)
    expect(page.locator("#table .flip.revealed")).to_have_count(2)
    time.sleep(0.8)
    shot(page, "match-result")
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert match.seats.get(index=0).user.username == "dora"

    page.goto("/")
    item = page.locator(f"li[data-match-id='{match_id}']")
    expect(item).to_contain_text("finished")
    expect(item.locator(".your-move")).to_have_count(0)
    shot(page, "lobby")


def test_two_humans_never_see_each_others_card_before_the_reveal(
    new_page: NewPage, user: Callable[[str], Any]
) -> None:
    user("alice")
    bob_user = user("bob")
    bob_user.screen_reader = True  # the leak check covers the screen-reader mode's text too
    bob_user.save(update_fields=["screen_reader"])
    alice, bob = new_page(), new_page(width=420, height=900)
    log_in(alice, "alice")
    match_id = create_match(alice, "hols-der-geier", invite="bob")
    expect(alice.locator("#status-line")).to_contain_text("Waiting for 1 more player")

    log_in(bob, "bob")
    invitation = bob.locator(f"li[data-match-id='{match_id}']")
    expect(invitation).to_contain_text("Invitation")
    invitation.get_by_role("button", name="Accept").click()
    bob.wait_for_url(f"**/matches/{match_id}")
    # The match has started: alice's lobby marks it as waiting for her move.
    alice.goto("/")
    item = alice.locator(f"li[data-match-id='{match_id}']")
    expect(item.locator(".your-move")).to_have_text("Your move")
    expect(alice.locator("#mine-status")).to_have_text("1 match waiting for your move.")
    item.get_by_role("link", name="Hols der Geier").click()
    alice.wait_for_url(f"**/matches/{match_id}")
    for page in (alice, bob):
        expect(page.locator("#status-line")).to_have_text("Your move: pick a card.")
    # Drawn as its catalogue record says: prize cards are mice or vultures, the pot names its rule.
    expect(alice.locator(".pot .card.mouse, .pot .card.vulture")).to_have_count(1)
    expect(alice.locator(".pot h3")).to_contain_text(re.compile(r"(mice|vulture): the"))

    a_card = click_first_card(alice)
    expect(alice.locator("#status-line")).to_contain_text("Waiting for bob")
    expect(alice.locator("#table td[data-seat='0'][data-role='now']")).to_contain_text(str(a_card))
    # Bob learns that alice has placed a card, never which.
    expect(bob.locator("#seat-rows tr[data-seat='0']")).to_contain_text("submitted ✓")
    bob_table = bob.locator("#table")
    expect(bob_table.locator("td[data-seat='0'][data-role='now'] .card.back")).to_have_count(1)
    now_cells = bob_table.locator("td[data-role='now']").all_inner_texts()
    assert len(now_cells) == 2 and not re.search(r"\d", "".join(now_cells))
    expect(bob_table.locator(".flip")).to_have_count(0)
    assert f"your card {a_card}" not in bob.content()
    # Bob's screen-reader mode reads the same view: a card face down, never its value.
    sealed = bob.locator("#reader-table dd").nth(3)
    expect(sealed).to_have_text("alice: card placed face down; bob (you): no card yet.")
    assert "alice played" not in bob.locator("#reader-log").inner_text()
    # What bob's page received from the API holds no trace of alice's card either.
    seen = bob.evaluate(
        "async (id) => (await Facedown.api('GET', `/matches/${id}`)).data", match_id
    )
    assert seen["view"]["history"] == [] and seen["view"]["piles"] == [None, None]
    assert seen["phase"]["submitted"] == [0] and seen["phase"]["your_move"] is None
    shot(bob, "match-mid-game-phone")

    b_card = click_first_card(bob)
    for page, other, card in ((alice, 1, b_card), (bob, 0, a_card)):
        flips = page.locator("#table .flip.revealed")
        expect(flips).to_have_count(2)
        expect(page.locator(f"#table td[data-seat='{other}'] .flip")).to_have_attribute(
            "aria-label", re.compile(rf" bid {card}$")
        )
        expect(page.locator("#history tbody tr")).to_have_count(1)
    time.sleep(0.8)
    shot(alice, "match-after-reveal")


def test_commit_reveal_in_the_browser(new_page: NewPage, embedded_worker: None, user: Any) -> None:
    user("carol")
    page = new_page()
    posted: list[tuple[str, dict[str, Any]]] = []

    def record(request: Request) -> None:
        if request.method == "POST" and re.search(r"/(moves|reveals)$", request.url):
            posted.append((request.url.rsplit("/", 1)[1], json.loads(request.post_data or "{}")))

    page.on("request", record)
    log_in(page, "carol")
    match_id = create_match(page, "gops", options={"num_cards": "3"}, protocol="commit-reveal")
    expect(page.locator("#match-meta")).to_contain_text("commit-reveal")
    played = play_to_the_end(page)
    assert played == 2
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    # Only commitments went to /moves; the reveals were posted by the page on its own.
    assert [kind for kind, _ in posted] == ["moves", "reveals", "moves", "reveals"]
    for kind, body in posted:
        if kind == "moves":
            assert set(body) == {"step", "commitment"}
            assert re.fullmatch(r"[0-9a-f]{64}", body["commitment"])
        else:
            assert set(body) == {"step", "move", "salt"}
            assert re.fullmatch(r"[0-9a-f]{32}", body["salt"])
    rows = Move.objects.filter(match_id=match_id, seat=0, step__in=[1, 2]).order_by("step")
    assert [row.commitment for row in rows] == [b["commitment"] for k, b in posted if k == "moves"]
    assert all(row.salt and row.payload for row in rows)
    # Revealed: nothing is left in the browser's storage.
    assert page.evaluate("Object.keys(localStorage).length") == 0


def test_replay_of_a_finished_match(new_page: NewPage, transactional_db: None) -> None:
    alice, bob = make_player("ann"), make_player("ben")
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    final = play_to_end(match_id, [alice, bob], pick=lambda legal: legal[-1])
    history = final["view"]["history"]
    assert final["status"] == "finished" and len(history) == 4

    page = new_page(width=390, height=844)
    page.goto("/login")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
    page.goto(f"/matches/{match_id}")
    expect(page.locator("#replay-panel")).to_be_visible()
    position = page.locator("#replay-pos")
    expect(position).to_have_text("Step 1 (1 of 4)")
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()

    def bids_shown() -> list[str]:
        labels = page.locator("#replay-view .flip").evaluate_all(
            "cards => cards.map(c => c.getAttribute('aria-label'))"
        )
        return [label.rsplit(" ", 1)[1] for label in labels]

    assert bids_shown() == [str(b) for b in history[0]["bids"]]
    page.get_by_role("button", name="Next step").click()
    expect(position).to_have_text("Step 2 (2 of 4)")
    assert bids_shown() == [str(b) for b in history[1]["bids"]]
    page.get_by_role("button", name="Last step").click()
    expect(position).to_have_text("Step 4 (4 of 4)")
    expect(page.get_by_role("button", name="Next step")).to_be_disabled()
    time.sleep(0.8)  # let the cards finish turning over for the screenshot
    shot(page, "replay-phone")
    page.get_by_role("button", name="Previous step").click()
    expect(position).to_have_text("Step 3 (3 of 4)")
    assert bids_shown() == [str(b) for b in history[2]["bids"]]
