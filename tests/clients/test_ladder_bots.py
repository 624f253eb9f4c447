"""Six client bots on the ladder against the live server, with no human action: five play
(the Python client's ``run``, each in a thread), one never moves. The server pairs them
(``ladder_pair`` here, between the waves the worker runs after each recorded match), ratings
move, the silent bot is paused once the clock made its first move (strikes over several matches
are tests/ladder's) and reads why on its account stream, and every transcript, downloaded by an
account that played none of them, passes the standalone verifier.

The clock is controlled: a step waits ten minutes for a move, and the test makes a step
overdue (``tests.clocks.overdue``) only once every seat but the silent bot's has moved, then
runs the deadline sweep itself."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from facedown_client import Bot, Client, SeatView, run
from facedown_client.types import Move

from games.models import Match
from games.services.deadlines import overdue_sweep
from games.verify import verify_transcript
from ladder.models import LadderEntry, LadderMatch
from ladder.services.pairing import ladder_pair
from ladder.services.results import stalled_sweep
from ladder.services.verification import ladder_verify
from tests.clients.conftest import PASSWORD
from tests.clocks import overdue

GAME = "gops"
ACCEPTS: dict[str, Any] = {
    "options": [{"num_cards": 3}],
    "time_controls": [{"per_step_seconds": 600, "on_timeout": "auto_move"}],
}
#: Recorded ladder matches the test waits for.
WANTED = 30


class Player(Bot):
    """Plays its highest card with probability ``boldness``, else a random one: bots of
    different strength, so the ratings spread."""

    def __init__(self, boldness: float, seed: int) -> None:
        self.boldness, self.random = boldness, random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        moves = view.legal_moves
        if self.random.random() < self.boldness:
            return max(moves, key=lambda move: move["card"])
        return self.random.choice(moves)


def _bot_account(registered: Callable[[], Client]) -> Client:
    client = registered()
    name = client.account.get()["username"]
    client.account.become_bot()
    client.login(name, PASSWORD, name="ladder bot")
    return client


def _listen(client: Client, heard: list[Any], stop: threading.Event) -> None:
    """Collect the account stream's items until ``stop`` (keep-alives wake the loop)."""
    stream = client.account.stream(read_timeout=2.0)
    try:
        for item in stream:
            if not item.is_keepalive:
                heard.append(item)
            if stop.is_set():
                return
    except httpx.HTTPError:
        return
    finally:
        stream.close()


def _time_out_the_silent(silent_entry: int) -> None:
    """Each running ladder match of the silent bot whose step waits for it alone: overdue."""
    for row in LadderMatch.objects.filter(finished_at__isnull=True):
        if silent_entry not in row.entries:
            continue
        seat = row.entries.index(silent_entry)
        match = Match.objects.get(pk=row.pk)
        waiting = match.acting_mask & ~match.submitted_mask
        if match.status == Match.Status.ACTIVE and waiting == 1 << seat:
            overdue(row.pk)
    overdue_sweep()


def test_six_bots_play_the_ladder_unattended(
    registered: Callable[[], Client], server: str, transactional_db: None
) -> None:
    bots = [_bot_account(registered) for _ in range(6)]
    silent, players = bots[0], bots[1:]
    for client in bots:
        assert client.ladder.enter(GAME, **ACCEPTS)["status"] == "active"
    silent_entry = LadderEntry.objects.get(user__username=silent.account.get()["username"]).pk

    stop = threading.Event()
    heard: list[Any] = []
    threads = [threading.Thread(target=_listen, args=(silent, heard, stop))]
    reports: list[Any] = []
    for n, client in enumerate(players):
        bot = Player(boldness=n / 4, seed=n)
        threads.append(
            threading.Thread(
                target=lambda c=client, b=bot: reports.append(
                    run(c, b, stop=stop, timeout=50, handle_signals=False, read_timeout=5)
                )
            )
        )
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 45
    try:
        while time.monotonic() < deadline:
            stalled_sweep()  # anything the worker has not recorded yet
            ladder_pair()
            _time_out_the_silent(silent_entry)
            if LadderMatch.objects.filter(ranking__isnull=False).count() >= WANTED:
                break
            time.sleep(0.2)
    finally:
        stop.set()
        for thread in threads:
            thread.join(20)
    for client in bots:
        client.ladder.leave(GAME)
    stalled_sweep()

    recorded = list(LadderMatch.objects.filter(ranking__isnull=False))
    assert len(recorded) >= WANTED, f"only {len(recorded)} ladder matches were played"
    assert all(not report.failed for report in reports)

    # The silent bot: paused, told on its stream, shown on the page; it resumes by its own act.
    entry = silent.ladder.entry(GAME)
    assert (entry["status"], entry["paused_reason"]) == ("left", None)  # it left at the end
    board = players[0].ladder.get(GAME)
    paused = [e for e in heard if e.type == "ladder_paused"]
    assert paused and paused[0].data == {"game": GAME, "reason": "missed_first_move", "strikes": 1}
    rows = {e["player"]: e for e in board["entrants"]}
    silent_row = rows[silent.account.get()["username"]]
    assert silent_row["played"] == 1  # its stand-in moved for it; paused after that match

    # Ratings moved: the uncertainty fell, the players spread apart.
    ratings = [rows[c.account.get()["username"]] for c in players]
    assert all(r["sigma"] < 25 / 3 - 1 for r in ratings)
    assert max(r["mu"] for r in ratings) - min(r["mu"] for r in ratings) > 1

    # Every transcript, downloaded by an account that played none of them, passes the
    # standalone verifier; the periodic job agrees and the page shows its counts.
    stranger = registered()
    for row in recorded:
        report = verify_transcript(stranger.matches.audit(str(row.pk)))
        assert report.ok, report.verdict()
    assert ladder_verify() == len(recorded)
    checked = players[0].ladder.get(GAME)["verification"]
    assert checked == {"verified": len(recorded), "failed": 0, "pending": 0, "failures": []}
    pairs = players[0].ladder.get(GAME)["crosstable"]
    assert sum(pair["matches"] for pair in pairs) == len(recorded)  # two seats: one pair each
    for pair in pairs:
        low, high = pair["interval"]
        assert low <= pair["score"] / pair["matches"] <= high
