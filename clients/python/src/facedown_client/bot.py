"""A small framework for program bots: write ``choose``, call ``run``.

``run`` follows the account stream (docs/live.md, "The user stream"): it answers challenges
by the bot's ``accept`` rule, plays every match waiting for the bot (the snapshot's
``awaiting_me`` on every connect, then each ``your_move``), commits and reveals under the
commit-reveal protocol, and reconnects with ``Last-Event-ID`` when the connection drops.
Everything it learns from a notification it reads again from the match itself, so a lost or
repeated notification costs a read, never a wrong move.

It survives its bot's errors: an exception in ``choose`` (or a move the server refuses) is
logged with the match id and that match alone is handed back by ``on_error`` (``"resign"``,
or ``"leave"`` it to the clock and the stand-in) while the others go on. It waits out a 429's
``Retry-After``, holds at most ``max_concurrent`` matches (a challenge past that is declined
``later``), and on SIGINT/SIGTERM (``handle_signals``) stops between two requests, never in
the middle of a move.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal

import httpx

from facedown_client.client import Client, Commitment
from facedown_client.errors import ApiError
from facedown_client.streams import StreamItem
from facedown_client.types import (
    DECLINE_REASONS,
    Challenge,
    DeclineReason,
    Match,
    Move,
    MoveAnswer,
    Phase,
)

log = logging.getLogger(__name__)

#: Refusals that only mean the match moved on without us (another notification will come, or
#: none is needed): the step resolved, was already answered, or the match is over.
MOVED_ON = frozenset(
    {"stale_step", "already_submitted", "wrong_phase", "match_not_active", "not_your_turn"}
)


@dataclass(frozen=True)
class SeatView:
    """What a bot sees when it must move: its seat's view of the match, never more."""

    match_id: str
    game: str
    options: dict[str, Any]
    step: int
    seat: int
    phase: Phase
    #: The engine's view for this seat (hand, pot, history, … per game; docs/api.md).
    view: dict[str, Any]
    legal_moves: list[Move]
    #: The whole match resource as ``GET /matches/{id}`` answered it.
    match: Match


class Bot:
    """Subclass it and write ``choose``; ``accept`` says which challenges to take."""

    def choose(self, view: SeatView) -> Move:
        raise NotImplementedError

    def accept(self, challenge: Challenge) -> bool | DeclineReason:
        """True to accept, False (declined as ``generic``) or a decline reason to refuse."""
        return True

    def join(self, match: Match) -> bool:
        """Whether to take the seat a match invites the bot to (a bulk pairing's, or a
        person's invitation): True joins, False declines it."""
        return True

    def finished(self, match: Match) -> None:
        """Called once per match of the bot that ended (``match_finished``)."""


#: What the runner does with a match its bot failed in, or holds when it stops: resign it, or
#: leave it to the clock (and the stand-in bot, where the match has one).
Policy = Literal["resign", "leave"]


class _Interrupted(Exception):
    """Raised by the signal handler while the runner waits on the stream (never mid-move)."""


@dataclass
class RunReport:
    finished: list[str] = field(default_factory=list)
    moves: list[MoveAnswer] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    #: Matches the bot failed in, and why (``"ValueError: …"``); each handed back by policy.
    failed: dict[str, str] = field(default_factory=dict)
    #: Matches resigned: by ``on_error`` after a failure, or by ``on_stop`` when stopping.
    resigned: list[str] = field(default_factory=list)
    reconnects: int = 0
    #: How often a 429 (``Retry-After``) was waited out on connecting.
    throttled: int = 0
    timed_out: bool = False
    #: The signal that stopped the run, if one did.
    stopped_by: str | None = None


@dataclass
class _Runner:
    client: Client
    bot: Bot
    max_matches: int | None
    stop: threading.Event
    deadline: float | None
    read_timeout: float
    on_error: Policy = "resign"
    max_concurrent: int | None = None
    report: RunReport = field(default_factory=RunReport)
    commitments: dict[tuple[str, int], Commitment] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    #: Matches being played (seen active, not yet finished).
    active: set[str] = field(default_factory=set)
    #: Matches handed back after a failure: never touched again by this run.
    abandoned: set[str] = field(default_factory=set)
    last_event_id: str | None = None
    #: True while a request that changes something may be under way: a signal then only
    #: sets ``stop``, and the run ends once the request is done.
    busy: bool = False

    def done(self) -> bool:
        if self.max_matches is not None and len(self.report.finished) >= self.max_matches:
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.report.timed_out = True
            return True
        return self.stop.is_set()

    def interrupt(self, number: int, frame: FrameType | None) -> None:
        first = not self.stop.is_set()
        self.report.stopped_by = self.report.stopped_by or signal.Signals(number).name
        self.stop.set()
        if first and not self.busy:  # waiting on the stream: nothing is being sent
            raise _Interrupted()

    def follow(self, reconnect_delay: float) -> None:
        try:
            self._follow(reconnect_delay)
        finally:
            self.busy = True  # what follows (resigning on a stop) is not interrupted

    def _follow(self, reconnect_delay: float) -> None:
        delay = reconnect_delay
        while not self.done():
            stream = self.client.account.stream(self.last_event_id, self.read_timeout)
            try:
                for item in stream:
                    self.busy = True
                    delay = reconnect_delay  # a working connection resets the back-off
                    if item.id is not None:
                        self.last_event_id = item.id
                    self.handle(item)
                    self.busy = False
                    if self.done():
                        return
            except _Interrupted:
                return
            except httpx.TransportError as error:
                log.info("account stream broke (%s); reconnecting", error)
            except ApiError as error:
                if error.status not in (429, 503) and error.status < 500:
                    raise  # a bad token or a missing route: reconnecting would not help
                if error.status == 429:
                    self.report.throttled += 1
                    log.info("throttled (%s); waiting %s s", error.code, error.retry_after)
                delay = max(delay, error.retry_after or 0.0)
            finally:
                self.busy = False
                stream.close()
            if self.done():
                return
            self.report.reconnects += 1
            self.pause(delay)
            delay = min(delay * 2, 30.0)

    def pause(self, seconds: float) -> None:
        """Wait before reconnecting; a stop (or a signal) ends the wait."""
        with suppress(_Interrupted):
            self.stop.wait(seconds)

    def handle(self, item: StreamItem) -> None:
        data = item.data if isinstance(item.data, dict) else {}
        if item.type == "snapshot":  # the matches held first: they count against the limit
            for match_id in data.get("awaiting_me") or []:
                self.play(str(match_id))
            for challenge in data.get("challenges") or []:
                self.consider(challenge)
            for match_id in data.get("invited") or []:
                self.invited(str(match_id))
        elif item.type in ("your_move", "match_started"):
            self.play(str(data["match"]))
        elif item.type == "challenge":
            self.consider(data)  # type: ignore[arg-type]
        elif item.type == "invited":
            self.invited(str(data["match"]))
        elif item.type == "match_finished":
            self.finish(str(data["match"]))

    def full(self) -> bool:
        return self.max_concurrent is not None and len(self.active) >= self.max_concurrent

    def consider(self, challenge: Challenge) -> None:
        challenge_id = str(challenge["id"])
        if challenge_id in self.answered or challenge.get("status", "pending") != "pending":
            return
        self.answered.add(challenge_id)
        try:
            verdict: bool | str = "later" if self.full() else self.bot.accept(challenge)
        except Exception:
            log.exception("challenge %s: the bot's accept failed; declining", challenge_id)
            verdict = False
        try:
            if verdict is True:
                accepted = self.client.challenges.accept(challenge_id)
                self.report.accepted.append(challenge_id)
                if accepted.get("match_id"):
                    self.active.add(str(accepted["match_id"]))
            else:
                reason: DeclineReason = verdict if verdict in DECLINE_REASONS else "generic"
                self.client.challenges.decline(challenge_id, reason)
                self.report.declined.append(challenge_id)
        except ApiError as error:  # canceled or expired meanwhile
            log.info("challenge %s: %s", challenge_id, error)

    def invited(self, match_id: str) -> None:
        match = self.client.matches.get(match_id)
        if match["status"] != "open":
            return
        if self.full():
            log.info("invitation to %s left for later: %s matches held", match_id, len(self.active))
            return
        try:
            wanted = self.bot.join(match)
        except Exception:
            log.exception("invitation to %s: the bot's join failed; declining", match_id)
            wanted = False
        try:
            if wanted:
                self.client.matches.join(match_id)
                self.report.joined.append(match_id)
                self.active.add(match_id)
            else:
                self.client.matches.decline(match_id)
        except ApiError as error:  # the match started, or was aborted, meanwhile
            log.info("invitation to %s: %s", match_id, error)

    def finish(self, match_id: str) -> None:
        self.active.discard(match_id)
        if match_id in self.report.finished:
            return
        self.report.finished.append(match_id)
        try:
            self.bot.finished(self.client.matches.get(match_id))
        except ApiError:
            raise
        except Exception:
            log.exception("match %s: the bot's finished hook failed", match_id)

    def play(self, match_id: str) -> None:
        if match_id in self.abandoned or self.stop.is_set():
            return
        try:
            match = self.client.matches.get(match_id)
        except ApiError as error:
            if error.status in (401, 429) or error.status >= 500:
                raise  # the token or the server: the stream's loop decides
            log.warning("match %s: cannot be read (%s); skipped", match_id, error)
            return
        you, legal = match.get("you"), match.get("legal_moves") or []
        if match["status"] != "active" or you is None:
            return
        self.active.add(match_id)
        step, phase = int(match["step"]), match["phase"]
        try:
            if phase["kind"] == "reveal":
                # A reveal phase lists no legal moves: what to reveal is our commitment.
                if you in phase["to_act"] and you not in phase["submitted"]:
                    self.reveal(match_id, step)
                return
            if not legal:
                return
            move = self.bot.choose(
                SeatView(
                    match_id=match_id,
                    game=match["game"],
                    options=match.get("options") or {},
                    step=step,
                    seat=int(you),
                    phase=phase,
                    view=match.get("view") or {},
                    legal_moves=legal,
                    match=match,
                )
            )
            if match.get("protocol") == "commit-reveal" and phase["kind"] == "simultaneous":
                sent = self.client.commit(match_id, move, step=step, seat=int(you))
                self.commitments[(match_id, step)] = sent
                self.report.moves.append(sent.answer)
            else:
                self.report.moves.append(self.client.move(match_id, move, step=step))
        except ApiError as error:
            if error.code in MOVED_ON:
                log.info("match %s step %s: %s", match_id, step, error.code)
            elif error.status == 401 or error.status >= 500:
                raise  # the token or the server, not this match: the run cannot go on as is
            else:
                self.hand_back(match_id, error)
        except httpx.TransportError:
            raise  # the connection, not this match: the stream reconnects
        except Exception as error:
            self.hand_back(match_id, error)

    def hand_back(self, match_id: str, error: Exception) -> None:
        """The bot failed in this match: log it, and resign it or leave it, by policy."""
        why = f"{type(error).__name__}: {error}"
        log.error(
            "match %s: %s; %s it",
            match_id,
            why,
            "resigning" if self.on_error == "resign" else "leaving",
            exc_info=error,
        )
        self.report.failed[match_id] = why
        self.abandoned.add(match_id)
        if self.on_error == "resign":
            self.resign(match_id)

    def resign(self, match_id: str) -> None:
        try:
            self.client.matches.resign(match_id)
            self.report.resigned.append(match_id)
        except ApiError as error:  # over meanwhile
            log.info("match %s: resigning: %s", match_id, error)

    def reveal(self, match_id: str, step: int) -> None:
        commitment = self.commitments.pop((match_id, step), None)
        if commitment is None:  # committed by an earlier process: its salt is gone
            log.warning("match %s step %s: nothing of ours to reveal", match_id, step)
            return
        self.report.moves.append(self.client.reveal(commitment))


@contextmanager
def _signals_to(runner: _Runner, wanted: bool) -> Iterator[None]:
    """SIGINT and SIGTERM stop ``runner`` cleanly while inside (main thread only)."""
    if not wanted or threading.current_thread() is not threading.main_thread():
        yield
        return
    numbers = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, runner.interrupt) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def run(
    client: Client,
    bot: Bot,
    *,
    max_matches: int | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    read_timeout: float = 60.0,
    reconnect_delay: float = 0.5,
    on_error: Policy = "resign",
    on_stop: Policy = "leave",
    max_concurrent: int | None = None,
    handle_signals: bool = True,
) -> RunReport:
    """Play as ``client``'s account until ``max_matches`` of its matches have finished,
    ``stop`` is set, or ``timeout`` seconds have passed (``report.timed_out``).

    ``read_timeout``: seconds without a byte (not even a keep-alive) after which the
    connection is taken for dead and opened again, resuming after the last item's id.
    ``on_error``: what to do with a match the bot failed in (``"resign"`` it, or ``"leave"``
    it to the clock); the others go on either way. ``on_stop``: the same for the matches still
    held when the run stops. ``max_concurrent``: at most this many matches at once (challenges
    past it are declined ``later``, invitations left for later). ``handle_signals``: SIGINT
    and SIGTERM stop the run cleanly (a move being sent is finished first;
    ``report.stopped_by``) when ``run`` is called on the main thread."""
    deadline = None if timeout is None else time.monotonic() + timeout
    runner = _Runner(
        client,
        bot,
        max_matches,
        stop or threading.Event(),
        deadline,
        read_timeout,
        on_error=on_error,
        max_concurrent=max_concurrent,
    )
    with _signals_to(runner, handle_signals):
        with suppress(_Interrupted):
            runner.follow(reconnect_delay)
        if runner.stop.is_set() and on_stop == "resign":
            for match_id in sorted(runner.active - set(runner.report.finished)):
                runner.resign(match_id)
    return runner.report
