"""Bot seats: created from the API, playing through the same services, seeing only their view."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.utils import timezone

from cardgames.bots import BotContext, Decision
from cardgames.bots.base import RandomBot
from games.catalog import bots_of, get_engine
from games.models import Match, Move, Seat
from games.services.bot_seats import bot_moves_play, stalled_bots_sweep
from tests.players import Player


@pytest.fixture(autouse=True)
def _no_runner(settings):
    settings.FACEDOWN_TASK_RUNNER = "off"


def _bot_match(player: Player, game: str, bots: list[Any], **extra: Any) -> str:
    seats = ["me", *({"bot": name} if isinstance(name, str) else name for name in bots)]
    created = player.create(game, seats, **extra)
    assert created.status_code == 201, created.content
    return created.json()["id"]


def test_games_list_their_bots(db):
    from rest_framework.test import APIClient

    for game in APIClient().get("/api/v1/games").json():
        names = [bot["name"] for bot in game["bots"]]
        assert {"random", "greedy"} <= set(names)
        assert all(bot["options"]["type"] == "object" for bot in game["bots"])


def test_a_bot_seat_starts_the_match_and_plays_through_the_services(alice: Player):
    match_id = _bot_match(alice, "gops", ["random"], options={"num_cards": 4})
    seen = alice.match(match_id)
    assert seen["status"] == "active"
    assert seen["seats"][1]["bot"] == "random" and seen["seats"][1]["player"] is None
    assert seen["seats"][1]["controlled_by"] == "bot"
    assert bot_moves_play(match_id=match_id, step=1) == 1
    assert bot_moves_play(match_id=match_id, step=1) == 0  # idempotent
    move = Move.objects.get(match_id=match_id, step=1, seat=1)
    assert move.source == Move.Source.BOT and move.receipt is not None
    assert alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0]).status_code == 202
    assert Match.objects.get(pk=match_id).step == 2


def test_a_match_of_bots_plays_itself_to_the_end(alice: Player):
    match_id = _bot_match(alice, "hols-der-geier", ["greedy", "random"], ready=True)
    # the creator resigns: only bots (and a forfeited seat) are left
    alice.post(f"/matches/{match_id}/resign")
    for _ in range(40):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            break
        bot_moves_play(match_id=match_id, step=match.step)
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED
    assert match.result["ranking"][-1] == [0]


def test_a_bot_sees_only_its_seats_view(alice: Player, bob: Player, monkeypatch):
    handed: list[dict[str, Any]] = []

    class SpyBot(RandomBot):
        def choose(self, ctx: BotContext) -> Decision:
            handed.append(ctx)
            return super().choose(ctx)

    monkeypatch.setitem(bots_of("hols-der-geier"), "spy", SpyBot())
    match_id = _bot_match(alice, "hols-der-geier", ["spy"], options={"history": "table_only"})
    bot_moves_play(match_id=match_id, step=1)
    (ctx,) = handed
    assert isinstance(ctx, BotContext) and ctx.seat == 1
    state = Match.objects.get(pk=match_id).state
    engine = get_engine("hols-der-geier")
    assert engine is not None
    assert ctx.view == engine.view(state, 1)
    assert ctx.legal_moves == engine.legal_moves(state, 1)
    assert "stock" not in ctx.view and "hands" not in ctx.view
    assert state["stock"] not in ctx.view.values()


def test_greedy_remembers_only_in_the_seat_row(alice: Player):
    match_id = _bot_match(alice, "hols-der-geier", ["greedy"], options={"history": "table_only"})
    for step in (1, 2):
        bot_moves_play(match_id=match_id, step=step)
        alice.move(match_id, step, alice.match(match_id)["legal_moves"][0])
    bot_moves_play(match_id=match_id, step=3)
    memory = Seat.objects.get(match_id=match_id, index=1).bot_memory
    assert memory["deal"] == 1
    assert len(memory["spent"]["0"]) == 2  # alice's two spent cards, seen on her pile


def test_greedy_gops_bids_near_the_prize(alice: Player):
    match_id = _bot_match(alice, "gops", ["greedy"], options={"prize_order": "descending"})
    bot_moves_play(match_id=match_id, step=1)
    assert Move.objects.get(match_id=match_id, seat=1).payload == {"card": 13}


def test_stalled_bots_are_nudged_by_the_sweep(alice: Player):
    match_id = _bot_match(alice, "gops", ["random"])
    assert Match.objects.get(pk=match_id).step_opened_at is not None
    assert stalled_bots_sweep() == 0  # just opened: its own task is still due
    later = timezone.now() + timezone.timedelta(minutes=5)
    assert stalled_bots_sweep(now=later) == 1
    assert stalled_bots_sweep(now=later) == 0


def test_a_match_with_two_stalled_bots_is_nudged_once(alice: Player, monkeypatch):
    from games.services import bot_seats as bot_services
    from games.services.bot_seats import stalled_bot_steps

    match_id = _bot_match(alice, "gops", ["random", "random"], options={"num_cards": 4})
    later = timezone.now() + timezone.timedelta(minutes=5)
    assert list(stalled_bot_steps(now=later)) == [(uuid.UUID(match_id), 1)]
    calls: list[str] = []
    real = bot_services.bot_moves_play

    def counted(*, match_id, step):
        calls.append(str(match_id))
        return real(match_id=match_id, step=step)

    monkeypatch.setattr(bot_services, "bot_moves_play", counted)
    assert stalled_bots_sweep(now=later) == 2  # both bots, in one change
    assert calls == [match_id]
    assert list(stalled_bot_steps(now=later)) == []


def test_one_broken_match_does_not_stop_the_sweep(alice: Player, monkeypatch):
    from games.services import bot_seats as bot_services

    first = _bot_match(alice, "gops", ["random"])
    second = _bot_match(alice, "gops", ["random"])
    real = bot_services.bot_moves_play

    def flaky(*, match_id, step):
        if str(match_id) == first:
            raise RuntimeError("broken match")
        return real(match_id=match_id, step=step)

    monkeypatch.setattr(bot_services, "bot_moves_play", flaky)
    later = timezone.now() + timezone.timedelta(minutes=5)
    assert stalled_bots_sweep(now=later) == 1
    assert Move.objects.filter(match_id=second).count() == 1


def test_a_forfeited_seats_stand_in_decides_once_per_step(alice, bob, carol, monkeypatch):
    from tests.players import start_match

    calls: list[int] = []

    class CountingBot(RandomBot):
        def choose(self, ctx: BotContext) -> Decision:
            calls.append(ctx.seat)
            return super().choose(ctx)

    monkeypatch.setitem(bots_of("gops"), "greedy", CountingBot())
    match_id = start_match("gops", [alice, bob, carol], options={"num_cards": 4})
    carol.post(f"/matches/{match_id}/resign")
    assert calls == []  # nobody has moved yet: the stand-in is asked when the step resolves
    for step in (1, 2):
        alice.move(match_id, step, alice.match(match_id)["legal_moves"][0])
        bob.move(match_id, step, bob.match(match_id)["legal_moves"][0])
        assert calls == [2] * step
    alice.move(match_id, 3, alice.match(match_id)["legal_moves"][0])
    bob.move(match_id, 3, bob.match(match_id)["legal_moves"][0])
    # step 3, then the forced last step 4: one decision each
    assert calls == [2] * 4
    assert Match.objects.get(pk=match_id).status == Match.Status.FINISHED


def test_bot_options_are_filled_and_stored(alice: Player):
    match_id = _bot_match(alice, "gops", [{"bot": "greedy", "options": {}}])
    seat = Seat.objects.get(match_id=match_id, index=1)
    assert seat.bot == "greedy" and seat.bot_options == {} and seat.accepted


def test_on_commit_enqueues_bot_moves_and_deadline(
    alice: Player, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.FACEDOWN_TASK_RUNNER = "celery"
    sent: list[tuple[str, tuple[Any, ...], Any]] = []
    from games import dispatch

    monkeypatch.setattr(
        dispatch, "enqueue", lambda name, *args, eta=None: sent.append((name, args, eta))
    )
    with django_capture_on_commit_callbacks(execute=True):
        match_id = _bot_match(alice, "gops", ["random"], time_control={"per_step_seconds": 30})
    deadline = Match.objects.get(pk=match_id).deadline
    games_jobs = [job for job in sent if job[0] != "notifications_outbound"]  # notify/'s own
    assert games_jobs == [
        ("bot_moves", (match_id, 1), None),
        ("step_expire", (match_id, 1), deadline),
    ]
