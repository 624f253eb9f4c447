"""The streams: a match's events and a user's notifications, as Server-Sent Events or NDJSON.

Async views, served by the ASGI server (docs/live.md; live.asgi serves them without Django's
request handler). Their database reads run on the shared thread pool, in one of the process's
bounded database turns (live/database.py), and give their connection back at once. Opening a
match stream:

1. authenticate and find the viewer's seat (one short database read);
2. subscribe to the viewer's channel of the match on the bus (``live.bus``);
3. read the snapshot (a new stream) or the events after ``Last-Event-ID`` (a resumed one) from
   the database, then give the database connection back;
4. forward the live messages, already redacted by the publisher, skipping any seq already
   sent; a gap (a later event overtook an earlier one from another process) is filled from
   the database. Subscribing before reading means nothing committed after the read is missed,
   and the seq check means nothing is sent twice.

While idle a stream holds its bus listener and nothing else: no database connection.

A stream follows its reader (docs/live.md): a seat's channel names the user who holds it, so a
message for a seat's later holder never reaches it; an occupancy notice that changes the
reader's seat moves it to the channel they may read now (then it catches up from the database
as they see the match now); a revocation notice, or a keep-alive after the process read a
revocation of the user, makes it check its credential again, and it ends if that was revoked.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.translation import gettext_noop
from django.views import View

from accounts.models import User
from core.errors import FacedownError, NotFound, NotSupported, ValidationFailed
from core.languages import request_language
from core.problems import PROBLEM_CONTENT_TYPE, problem_body, problem_vary
from games.api.params import param_int
from games.services import bodies, presenters, reads
from live.auth import ME, Credential, NotAuthenticated, credential_valid, stream_credential
from live.bus import (
    BROKEN,
    KEEPALIVE,
    LOG_NOTICE,
    Listener,
    bus,
    chat_channel,
    log_id_parse,
    log_id_resumable,
    match_channel,
    revoked_channel,
    seats_channel,
    tournament_channel,
    user_channel,
)
from live.database import bounded
from live.revocations import watch
from social.challenges import challenges_pending
from social.chat import mutes_of
from tournaments.services.reads import tournament_readable, tournament_standings

logger = logging.getLogger(__name__)

NDJSON = "application/x-ndjson"
#: What ``StreamReader.next`` gives once the stream's token has expired.
EXPIRED = object()
SSE = "text/event-stream"
MAX_SEQ = 2**31 - 1


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass
class Frames:
    """How a stream writes its items: SSE (``event:``/``id:``/``data:``) or NDJSON lines."""

    ndjson: bool

    @property
    def content_type(self) -> str:
        return NDJSON if self.ndjson else f"{SSE}; charset=utf-8"

    def item(self, kind: str, seq: int | str | None, data: Any) -> str:
        if self.ndjson:
            return _json({"type": kind, "id": seq, "data": data}) + "\n"
        seq_line = f"id: {seq}\n" if seq is not None else ""
        return f"event: {kind}\n{seq_line}data: {_json(data)}\n\n"

    def keepalive(self) -> str:
        return "\n" if self.ndjson else ": keep-alive\n\n"

    def opening(self) -> str:
        """SSE tells EventSource how soon to reconnect; NDJSON has nothing to say."""
        return "" if self.ndjson else "retry: 2000\n\n"


def _frames(request: HttpRequest) -> Frames:
    if not isinstance(request, ASGIRequest):
        # A WSGI server would buffer an endless body and hold a worker for it.
        raise NotSupported(gettext_noop("Streams are served by the ASGI server (docs/live.md)."))
    return Frames(ndjson=NDJSON in request.headers.get("Accept", ""))


async def _problem(exc: FacedownError, request: HttpRequest, reader: User | None) -> JsonResponse:
    """The problem in the language of the API's problems: the profile of the stream's reader
    once their credential is read (the profile may need a query), else the browser's."""
    if reader is not None:
        language = await bounded(request_language)(request, reader)
    else:
        language = translation.get_language_from_request(request)
    with translation.override(language):
        body = problem_body(exc.status, exc.code, exc.title, exc.detail, **exc.extra)
    response = JsonResponse(body, status=exc.status, content_type=PROBLEM_CONTENT_TYPE)
    response["Content-Language"] = language
    problem_vary(response)
    if isinstance(exc, NotAuthenticated):
        response["WWW-Authenticate"] = "Token"
    return response


class ReaderRefused(Exception):
    """A refusal once the stream knows its reader, whose profile then chooses its language."""

    def __init__(self, problem: FacedownError, reader: User) -> None:
        super().__init__(str(problem))
        self.problem = problem
        self.reader = reader


def _stream_response(frames: Frames, body: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type=frames.content_type)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy must pass each event on at once
    # Any page may read a stream it holds a ticket or token for (no cookies cross-origin),
    # so a web client served from the WSGI server can stream from the ASGI one.
    response["Access-Control-Allow-Origin"] = "*"
    response.live_items = body  # type: ignore[attr-defined]  # for live.asgi, which sends it
    return response


# --- the match stream --------------------------------------------------------------------------


@dataclass
class MatchOpening:
    seat: int | None
    #: (type, seq, data) to send first: the snapshot, or the events after Last-Event-ID.
    items: list[tuple[str, int | None, Any]] = field(default_factory=list)
    last_seq: int = 0


def _last_event_id(request: HttpRequest) -> int | None:
    header = request.headers.get("Last-Event-ID")
    params = {"last_event_id": header} if header is not None else request.GET
    if params.get("last_event_id") in (None, ""):
        return None
    return param_int(params, "last_event_id", default=0, low=0, high=MAX_SEQ)


_MATCH_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII)


def _match_key(raw: str) -> str:
    """A lowercase hyphenated UUID, as the API writes match ids; anything else names none."""
    if not _MATCH_ID.fullmatch(raw):
        raise NotFound(gettext_noop("No match with this id."))
    return raw


def _seat_read(
    request: HttpRequest, match_id: str
) -> tuple[Credential, int | None, frozenset[str]]:
    """The viewer's credential, their seat and the players whose chat they muted (as of
    opening)."""
    credential = stream_credential(request, f"match:{match_id}")
    try:
        seat = reads.match_snapshot(match_id=match_id, user=credential.user).you
    except FacedownError as exc:
        raise ReaderRefused(exc, credential.user) from exc
    return credential, seat, frozenset(mutes_of(credential.user))


def _events_after(snapshot: reads.MatchSnapshot, after: int) -> list[bodies.Event]:
    shown: list[bodies.Event] = []
    more = True
    while more:
        page, more = presenters.events_for_viewer(snapshot=snapshot, after=after)
        shown += page
        after = page[-1]["seq"] if page else after
    return shown


def _match_open(match_id: str, user: User, last: int | None) -> MatchOpening:
    snapshot = reads.match_snapshot(match_id=match_id, user=user)
    if last is None:
        resource = presenters.match_resource(snapshot)  # may renew the snapshot
        return MatchOpening(
            seat=snapshot.you,
            items=[("snapshot", None, resource)],
            last_seq=snapshot.match.last_seq,
        )
    events = _events_after(snapshot, last)
    return MatchOpening(
        seat=snapshot.you,
        items=[(e["type"], e["seq"], e) for e in events],
        last_seq=events[-1]["seq"] if events else last,
    )


def _match_catch_up(match_id: str, user: User, after: int) -> list[dict[str, Any]]:
    events = _events_after(reads.match_snapshot(match_id=match_id, user=user), after)
    return cast(list[dict[str, Any]], events)


def _seat_now(match_id: str, user: User) -> int | None:
    return reads.match_snapshot(match_id=match_id, user=user).you


def _still_valid(credential: Credential) -> bool:
    """Whether the credential stands; if it cannot be checked (the database is away), the
    stream ends, as after a revocation: its client reconnects and authenticates again."""
    try:
        return credential_valid(credential)
    except Exception:
        logger.warning("live: a stream's credential could not be checked", exc_info=True)
        return False


def _match_channels(match_id: str, seat: int | None, user_id: int) -> tuple[str, ...]:
    """What a match stream listens to: its reader's events (the seat's, named with its
    holder, or the spectators'), the chat, the occupancy notices and the user's revocations."""
    return (
        match_channel(match_id, seat, user_id if seat is not None else None),
        chat_channel(match_id),
        seats_channel(match_id),
        revoked_channel(user_id),
    )


@dataclass
class StreamReader:
    """Who a stream reads for, and what must still stand for it to go on."""

    credential: Credential

    async def next(self, listener: Listener) -> Any:
        """The listener's next message, or ``EXPIRED`` once the credential's token expires."""
        expires = self.credential.expires
        if expires is None:
            return await listener.get()
        try:
            return await asyncio.wait_for(listener.get(), max(0.0, expires - time.time()))
        except TimeoutError:
            return EXPIRED

    async def allowed(self, message: Any) -> bool:
        """Whether the stream may go on after ``message``: a revocation notice, or a
        keep-alive after this process read a revocation of the user from the database, makes
        it check its credential again."""
        latest = self.credential.since
        if message is KEEPALIVE:
            latest = await watch.latest(self.credential.user.pk)
            if latest <= self.credential.since:
                return True
        elif not (isinstance(message, str) and message.startswith('{"revoked"')):
            return True
        if not await bounded(_still_valid)(self.credential):
            return False
        self.credential.since = max(self.credential.since, latest)  # checked up to here
        return True


@dataclass
class MatchStreamReader(StreamReader):
    match_id: str
    muted: frozenset[str] = frozenset()

    async def catch_up(self, after: int) -> list[dict[str, Any]]:
        read = bounded(_match_catch_up)
        return await read(self.match_id, self.credential.user, after)

    async def moved(
        self, listener: Listener, seat: int | None, notice: str
    ) -> tuple[Listener, int | None] | None:
        """After an occupancy notice: None if the reader's seat is the same, else the listener
        for the seat they hold now (subscribed before the caller catches up from the database,
        so nothing committed later is missed) and that seat."""
        user = self.credential.user
        holders: list[int | None] = json.loads(notice)["seats"]
        if (holders.index(user.pk) if user.pk in holders else None) == seat:
            return None
        read = bounded(_seat_now)
        try:
            now = await read(self.match_id, user)
            for _ in range(3):
                if now == seat:
                    return listener, seat
                fresh = await bus().subscribe(*_match_channels(self.match_id, now, user.pk))
                await listener.close()
                listener, seat = fresh, now
                # Read again after subscribing: a change in between notified only the old one.
                now = await read(self.match_id, user)
            raise NotFound(gettext_noop("The reader's seat keeps changing."))
        except BaseException:
            await listener.close()  # the newest: the caller closes only the one it holds
            raise


async def match_stream(request: HttpRequest, match_id: str) -> HttpResponseBase:
    user: User | None = None
    try:
        frames = _frames(request)
        key = _match_key(match_id)
        last = _last_event_id(request)
        credential, seat, muted = await bounded(_seat_read)(request, key)
        user = credential.user
        for _ in range(3):  # the viewer may take a seat between the two reads
            listener = await bus().subscribe(*_match_channels(key, seat, user.pk))
            try:
                opening = await bounded(_match_open)(key, user, last)
            except BaseException:
                await listener.close()
                raise
            if opening.seat == seat:
                break
            await listener.close()
            seat = opening.seat
        else:
            raise NotFound(gettext_noop("No match with this id."))
    except FacedownError as exc:
        return await _problem(exc, request, user)
    except ReaderRefused as refused:
        return await _problem(refused.problem, request, refused.reader)
    return _stream_response(
        frames, _match_items(frames, listener, opening, MatchStreamReader(credential, key, muted))
    )


@functools.lru_cache(maxsize=64)
def _formatted(message: str, ndjson: bool) -> tuple[int, int, str]:
    """A published message as frames, once for all the streams that receive it: its first
    seq, its last, and the text."""
    events: list[dict[str, Any]] = json.loads(message)
    if not events:
        return -1, -1, ""
    frames = Frames(ndjson=ndjson)
    chunk = "".join(frames.item(e["type"], e["seq"], e) for e in events)
    return events[0]["seq"], events[-1]["seq"], chunk


async def _match_items(
    frames: Frames, listener: Listener, opening: MatchOpening, reader: MatchStreamReader
) -> AsyncIterator[str]:
    last, seat = opening.last_seq, opening.seat
    try:
        yield frames.opening() + "".join(frames.item(*item) for item in opening.items)
        while True:
            message = await reader.next(listener)
            if isinstance(message, str) and message.startswith("["):
                # The usual case: a batch of events, already redacted for this reader.
                first, final, chunk = _formatted(message, frames.ndjson)
                if first == last + 1:  # the chunk every listener shares
                    last = final
                    yield chunk
                    continue
                events: list[dict[str, Any]] = json.loads(message)
                fresh = [e for e in events if e["seq"] > last]
                if fresh and fresh[0]["seq"] > last + 1:  # an earlier commit's message is late
                    fresh = await reader.catch_up(last)
                if fresh:
                    last = fresh[-1]["seq"]
                    yield "".join(frames.item(e["type"], e["seq"], e) for e in fresh)
                continue
            if message is BROKEN or message is EXPIRED or not await reader.allowed(message):
                return  # the client reconnects (and resumes), or is refused
            if message is KEEPALIVE:
                yield frames.keepalive()
            elif message.startswith('{"seats"'):
                # A seat changed hands: if it was the reader's (or became theirs), follow them
                # to the channel they may read now and send what they missed, as they see it.
                try:
                    move = await reader.moved(listener, seat, message)
                except FacedownError:
                    return
                if move is not None:
                    listener, seat = move
                    fresh = await reader.catch_up(last)
                    if fresh:
                        last = fresh[-1]["seq"]
                        yield "".join(frames.item(e["type"], e["seq"], e) for e in fresh)
            elif message.startswith('{"chat"'):
                # Chat has its own numbering, never an event's: no SSE id, so Last-Event-ID
                # stays the event seq; clients catch up with GET /chat?after=.
                chat = json.loads(message)["chat"]
                if chat["player"] not in reader.muted:
                    yield frames.item("chat", None, chat)
    finally:
        await listener.close()


# --- the user stream ---------------------------------------------------------------------------
#
# Its items come from the user's account log on the bus (``Bus.account_append``), each with the
# log's id: a new stream starts with a snapshot (the matches awaiting the user's move and the
# challenges to them), then sends what the log gains; a stream resumed with ``Last-Event-ID``
# sends the items after that id instead, or, when the log no longer holds that id (it keeps
# the last 1,000 items, for 30 days), starts over with a snapshot.


def _user_check(request: HttpRequest) -> Credential:
    return stream_credential(request, ME)


def _snapshot(user: User) -> dict[str, Any]:
    """What waits for the user: their move, their answer to an invitation or a challenge."""
    awaiting = reads.match_list(user=user, awaiting_me=True).prefetch_related(None)
    invited = reads.match_list(user=user, invited=True).prefetch_related(None)
    return {
        "awaiting_me": [str(match_id) for match_id in awaiting.values_list("id", flat=True)],
        "invited": [str(match_id) for match_id in invited.values_list("id", flat=True)],
        "challenges": challenges_pending(user)["incoming"],
    }


def _resume_from(request: HttpRequest) -> str | None:
    raw = request.headers.get("Last-Event-ID", request.GET.get("last_event_id"))
    if raw in (None, ""):
        return None
    # Checked before the answer's headers: Redis refuses an id beyond 64 bits, or after the
    # last it can number, and the stream would break after its 200.
    if not log_id_resumable(raw):
        raise ValidationFailed(
            {"Last-Event-ID": [gettext_noop("An item id of this stream (<ms>-<n>).")]}
        )
    return raw


def _user_opening(user: User, resume: str | None) -> tuple[str | None, list[str]]:
    """Where the stream's log reading starts, and the frames' items to send before it."""
    log = bus().account_bounds(user.pk)
    if resume is not None and log is not None:
        oldest, newest = log_id_parse(log[0]), log_id_parse(log[1])
        asked = log_id_parse(resume) or (0, 0)
        # An id the log may hold: not older than its oldest, not newer than its newest (an id
        # from the future was never this log's: the stream starts over, not silent).
        if oldest is not None and newest is not None and oldest <= asked <= newest:
            return resume, []
    return (log[1] if log is not None else None), ["snapshot"]


async def user_stream(request: HttpRequest) -> HttpResponseBase:
    user: User | None = None
    try:
        frames = _frames(request)
        resume = _resume_from(request)
        credential = await bounded(_user_check)(request)
        user = credential.user
        # Subscribed first: an item logged after the log was read below still wakes it.
        listener = await bus().subscribe(user_channel(user.pk), revoked_channel(user.pk))
        try:
            after, opening = await asyncio.to_thread(_user_opening, user, resume)
            snapshot = await bounded(_snapshot)(user) if opening else None
        except BaseException:
            await listener.close()
            raise
    except FacedownError as exc:
        return await _problem(exc, request, user)
    return _stream_response(
        frames, _user_items(frames, listener, after, snapshot, StreamReader(credential))
    )


def _logged(frames: Frames, items: list[tuple[str, str]]) -> str:
    chunk = []
    for item_id, text in items:
        item = json.loads(text)
        chunk.append(frames.item(str(item["type"]), item_id, item["data"]))
    return "".join(chunk)


async def _user_items(
    frames: Frames,
    listener: Listener,
    after: str | None,
    snapshot: dict[str, Any] | None,
    reader: StreamReader,
) -> AsyncIterator[str]:
    user_id = reader.credential.user.pk
    try:
        first = frames.opening()
        if snapshot is not None:
            first += frames.item("snapshot", None, snapshot)
        pending = True  # the log may have gained items since it was read
        while True:
            if pending:
                items = await asyncio.to_thread(bus().account_items, user_id, after)
                if items:
                    after = items[-1][0]
                    first += _logged(frames, items)
                pending = len(items) == 500
                if first:
                    yield first
                    first = ""
                if pending:
                    continue
            message = await reader.next(listener)
            if message is BROKEN or message is EXPIRED or not await reader.allowed(message):
                return
            if message is KEEPALIVE:
                yield frames.keepalive()
            elif message == LOG_NOTICE:
                pending = True
    finally:
        await listener.close()


# --- the tournament stream ---------------------------------------------------------------------
#
# The standings as they change: a ``standings`` item first (as GET /tournaments/{id}/standings
# returns them), then one each time a round ends or the tournament finishes, published after
# that change committed (``live.tournaments``). Built from finished matches only, like every
# read of a tournament. No ids: a reconnecting client starts again with the current standings.


def _tournament_key(raw: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", raw):
        raise NotFound(gettext_noop("No such tournament."))
    return raw


async def tournament_stream(request: HttpRequest, tournament_id: str) -> HttpResponseBase:
    reader: User | None = None
    try:
        frames = _frames(request)
        key = _tournament_key(tournament_id)
        credential = await bounded(stream_credential)(request, f"tournament:{key}")
        reader = credential.user
        # Invitation-only: a stranger's stream is not_found, as a missing tournament's.
        await bounded(tournament_readable)(key, viewer=credential.user)
        # Subscribed before the read: a change committed after it still reaches the stream.
        listener = await bus().subscribe(
            tournament_channel(key), revoked_channel(credential.user.pk)
        )
        try:
            standings = await bounded(tournament_standings)(key)
        except BaseException:
            await listener.close()
            raise
    except FacedownError as exc:
        return await _problem(exc, request, reader)
    return _stream_response(
        frames, _tournament_items(frames, listener, standings, StreamReader(credential))
    )


async def _tournament_items(
    frames: Frames, listener: Listener, standings: dict[str, Any], reader: StreamReader
) -> AsyncIterator[str]:
    try:
        yield frames.opening() + frames.item("standings", None, standings)
        while True:
            message = await reader.next(listener)
            if message is BROKEN or message is EXPIRED or not await reader.allowed(message):
                return
            if message is KEEPALIVE:
                yield frames.keepalive()
            elif isinstance(message, str) and message.startswith('{"standings"'):
                yield frames.item("standings", None, json.loads(message)["standings"])
    finally:
        await listener.close()


class TournamentStreamView(View):
    """``GET /api/v1/tournaments/{id}/stream`` (live.asgi serves it without Django's handler)."""

    async def get(self, request: HttpRequest, tournament_id: str) -> HttpResponseBase:
        return await tournament_stream(request, tournament_id)


class MatchStreamView(View):
    """``GET /api/v1/matches/{id}/stream`` (live.asgi serves it without Django's handler)."""

    async def get(self, request: HttpRequest, match_id: str) -> HttpResponseBase:
        return await match_stream(request, match_id)


class UserStreamView(View):
    """``GET /api/v1/accounts/me/stream``."""

    async def get(self, request: HttpRequest) -> HttpResponseBase:
        return await user_stream(request)
