"""A small framework for program bots: write ``choose``, call ``run``.

``run`` follows the account stream (docs/live.md, "The user stream"): it answers challenges
by the bot's ``accept`` rule, plays every match waiting for the bot (the snapshot's
``awaiting_me`` on every connect, then each ``your_move``), commits and reveals under the
commit-reveal protocol, and reconnects with ``Last-Event-ID`` when the connection drops.
Everything it learns from a notification it reads again from the match itself, so a lost or
repeated notification costs a read, never a wrong move.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class RunReport:
    finished: list[str] = field(default_factory=list)
    moves: list[MoveAnswer] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    joined: list[str] = field(default_factory=list)
    reconnects: int = 0
    timed_out: bool = False


@dataclass
class _Runner:
    client: Client
    bot: Bot
    max_matches: int | None
    stop: threading.Event
    deadline: float | None
    read_timeout: float
    report: RunReport = field(default_factory=RunReport)
    commitments: dict[tuple[str, int], Commitment] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    last_event_id: str | None = None

    def done(self) -> bool:
        if self.max_matches is not None and len(self.report.finished) >= self.max_matches:
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.report.timed_out = True
            return True
        return self.stop.is_set()

    def follow(self, reconnect_delay: float) -> None:
        delay = reconnect_delay
        while not self.done():
            stream = self.client.account_stream(self.last_event_id, self.read_timeout)
            try:
                for item in stream:
                    delay = reconnect_delay  # a working connection resets the back-off
                    if item.id is not None:
                        self.last_event_id = item.id
                    self.handle(item)
                    if self.done():
                        return
            except httpx.TransportError as error:
                log.info("account stream broke (%s); reconnecting", error)
            except ApiError as error:
                if error.status not in (429, 503) and error.status < 500:
                    raise  # a bad token or a missing route: reconnecting would not help
                delay = max(delay, error.retry_after or 0.0)
            finally:
                stream.close()
            self.report.reconnects += 1
            time.sleep(delay)
            delay = min(delay * 2, 30.0)

    def handle(self, item: StreamItem) -> None:
        data = item.data if isinstance(item.data, dict) else {}
        if item.type == "snapshot":
            for challenge in data.get("challenges") or []:
                self.consider(challenge)
            for match_id in data.get("awaiting_me") or []:
                self.play(str(match_id))
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

    def consider(self, challenge: Challenge) -> None:
        challenge_id = str(challenge["id"])
        if challenge_id in self.answered or challenge.get("status", "pending") != "pending":
            return
        self.answered.add(challenge_id)
        verdict = self.bot.accept(challenge)
        try:
            if verdict is True:
                self.client.accept_challenge(challenge_id)
                self.report.accepted.append(challenge_id)
            else:
                reason: DeclineReason = verdict if verdict in DECLINE_REASONS else "generic"
                self.client.decline_challenge(challenge_id, reason)
                self.report.declined.append(challenge_id)
        except ApiError as error:  # canceled or expired meanwhile
            log.info("challenge %s: %s", challenge_id, error)

    def invited(self, match_id: str) -> None:
        match = self.client.match(match_id)
        if match["status"] != "open":
            return
        try:
            if self.bot.join(match):
                self.client.join(match_id)
                self.report.joined.append(match_id)
            else:
                self.client.decline(match_id)
        except ApiError as error:  # the match started, or was aborted, meanwhile
            log.info("invitation to %s: %s", match_id, error)

    def finish(self, match_id: str) -> None:
        if match_id in self.report.finished:
            return
        self.report.finished.append(match_id)
        self.bot.finished(self.client.match(match_id))

    def play(self, match_id: str) -> None:
        match = self.client.match(match_id)
        you, legal = match.get("you"), match.get("legal_moves") or []
        if match["status"] != "active" or you is None:
            return
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
            if error.code not in MOVED_ON:
                raise
            log.info("match %s step %s: %s", match_id, step, error.code)

    def reveal(self, match_id: str, step: int) -> None:
        commitment = self.commitments.pop((match_id, step), None)
        if commitment is None:  # committed by an earlier process: its salt is gone
            log.warning("match %s step %s: nothing of ours to reveal", match_id, step)
            return
        self.report.moves.append(self.client.reveal(commitment))


def run(
    client: Client,
    bot: Bot,
    *,
    max_matches: int | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
    read_timeout: float = 60.0,
    reconnect_delay: float = 0.5,
) -> RunReport:
    """Play as ``client``'s account until ``max_matches`` of its matches have finished,
    ``stop`` is set, or ``timeout`` seconds have passed (``report.timed_out``).

    ``read_timeout``: seconds without a byte (not even a keep-alive) after which the
    connection is taken for dead and opened again, resuming after the last item's id."""
    deadline = None if timeout is None else time.monotonic() + timeout
    runner = _Runner(client, bot, max_matches, stop or threading.Event(), deadline, read_timeout)
    runner.follow(reconnect_delay)
    return runner.report
