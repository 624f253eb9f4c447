"""``Client``: the Facedown HTTP API v1 (docs/api.md) over httpx, one typed method per call."""

from __future__ import annotations

import time
import uuid
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, cast

import httpx

from facedown_client.errors import ApiError
from facedown_client.fairness import commitment_hash, new_salt, verify_receipt
from facedown_client.streams import NDJSON, StreamItem, parse_lines
from facedown_client.types import (
    AccessToken,
    Account,
    Challenge,
    Challenges,
    DeclineReason,
    EventPage,
    FairnessKey,
    Game,
    Match,
    Move,
    MoveAnswer,
    Page,
    Receipt,
)

API_PREFIX = "/api/v1"
#: Answers worth sending the same request again for, under the same Idempotency-Key: the
#: first is still running (409 idempotency_in_progress), or the database was briefly away (503).
RETRIED_CODES = frozenset({"idempotency_in_progress", "service_unavailable"})


@dataclass(frozen=True)
class Commitment:
    """A commitment sent under the commit-reveal protocol: keep it until the reveal phase,
    since the salt is the only way to open it."""

    match_id: str
    step: int
    seat: int
    move: Move
    salt: str
    commitment: str
    answer: MoveAnswer


class Client:
    """A client of one Facedown server.

    ``base_url`` is the site's root (``http://127.0.0.1:8000``); ``token`` the API token, or
    None until ``login``/``register``. ``auth_scheme`` is the word before the token: the
    server accepts ``Bearer`` and the older ``Token``. ``retries`` is how often a request
    that failed on the network (or met ``idempotency_in_progress`` / 503) is sent again; a
    POST keeps its Idempotency-Key across them, so the server applies it once.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 10.0,
        retries: int = 3,
        auth_scheme: str = "Bearer",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        if root.endswith(API_PREFIX):
            root = root[: -len(API_PREFIX)]
        self.base_url = root
        self.token = token
        self.auth_scheme = auth_scheme
        self.retries = retries
        self.timeout = timeout
        self._http = httpx.Client(base_url=root + API_PREFIX, timeout=timeout, transport=transport)
        self._key: FairnessKey | None = None

    # -- plumbing --------------------------------------------------------------------------

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"{self.auth_scheme} {self.token}"
        headers.update(extra or {})
        return headers

    @staticmethod
    def _error(response: httpx.Response) -> ApiError:
        try:
            problem = response.json()
        except ValueError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {"detail": str(problem)}
        retry_after = response.headers.get("Retry-After")
        wait = float(retry_after) if retry_after and retry_after.isdigit() else None
        return ApiError(response.status_code, problem, wait)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        idempotent: bool = True,
    ) -> Any:
        """One API call: ``path`` below ``/api/v1``; the JSON answer (None for 204).

        A POST carries an ``Idempotency-Key`` (a uuid4, the same on every retry) unless
        ``idempotent`` is false; GET, DELETE and keyed POSTs are retried after a network
        error. Raises ``ApiError`` for a 4xx or 5xx answer."""
        extra: dict[str, str] = {}
        if method == "POST" and idempotent:
            extra["Idempotency-Key"] = str(uuid.uuid4())
        retryable = method != "POST" or idempotent
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    method, path, json=body, params=params, headers=self._headers(extra)
                )
            except httpx.TransportError:
                if not retryable or attempt >= self.retries:
                    raise
                attempt += 1
                time.sleep(min(2.0, 0.1 * 2**attempt))
                continue
            if response.status_code < 400:
                return (
                    None
                    if response.status_code == 204 or not response.content
                    else (response.json())
                )
            error = self._error(response)
            if retryable and error.code in RETRIED_CODES and attempt < self.retries:
                attempt += 1
                time.sleep(min(5.0, error.retry_after or 0.2 * attempt))
                continue
            raise error

    # -- accounts and tokens -----------------------------------------------------------------

    def register(self, username: str, password: str, email: str | None = None) -> str:
        """Create an account and use its token from now on; returns the token."""
        body: dict[str, Any] = {"username": username, "password": password}
        if email is not None:
            body["email"] = email
        answer = self.request("POST", "/accounts/register", body, idempotent=False)
        self.token = str(answer["token"])
        return self.token

    def login(
        self,
        username: str,
        password: str,
        *,
        name: str | None = None,
        scopes: list[str] | None = None,
        expires_in: int | None = None,
    ) -> AccessToken:
        """Log in and use the token from now on. ``name``, ``scopes`` and ``expires_in``
        (seconds) ask for a personal access token; left out, they are not sent at all, since a
        server without access tokens refuses unknown fields."""
        body: dict[str, Any] = {"username": username, "password": password}
        optional = {"name": name, "scopes": scopes, "expires_in": expires_in}
        body.update({field: value for field, value in optional.items() if value is not None})
        answer = cast(AccessToken, self.request("POST", "/accounts/token", body, idempotent=False))
        self.token = answer["token"]
        return answer

    def logout(self) -> None:
        self.request("POST", "/accounts/logout", idempotent=False)
        self.token = None

    def me(self) -> Account:
        return cast(Account, self.request("GET", "/accounts/me"))

    def become_bot(self) -> Account:
        """Mark this account as a bot account (``POST /accounts/me/bot``), for good; returns
        it. Its tokens end with it: ``login`` again for one with ``bot:play``."""
        account = cast(Account, self.request("POST", "/accounts/me/bot"))
        self.token = None
        return account

    def tokens(self) -> list[AccessToken]:
        return cast(list[AccessToken], self.request("GET", "/accounts/me/tokens"))

    def create_token(
        self, name: str, scopes: list[str], expires_in: int | None = None
    ) -> AccessToken:
        """A new personal access token; its ``token`` is shown this once."""
        body: dict[str, Any] = {"name": name, "scopes": scopes}
        if expires_in is not None:
            body["expires_in"] = expires_in
        return cast(AccessToken, self.request("POST", "/accounts/me/tokens", body))

    def delete_token(self, token_id: int) -> None:
        self.request("DELETE", f"/accounts/me/tokens/{token_id}")

    # -- games and matches -------------------------------------------------------------------

    def games(self) -> list[Game]:
        return cast(list[Game], self.request("GET", "/games"))

    def game(self, slug: str) -> Game:
        return cast(Game, self.request("GET", f"/games/{slug}"))

    def create_match(self, game: str, seats: list[Any], **fields: Any) -> Match:
        """``POST /matches``: ``seats`` as docs/api.md spells them (``"me"``, ``{"user": name}``,
        ``"open"``, ``{"bot": name}``); ``fields`` the other keys (``options``, ``protocol``,
        ``time_control``, ``rated``, ``ready``, …)."""
        return cast(
            Match, self.request("POST", "/matches", {"game": game, "seats": seats, **fields})
        )

    def match(self, match_id: str) -> Match:
        return cast(Match, self.request("GET", f"/matches/{match_id}"))

    def matches(self, **filters: Any) -> Page:
        """One page of ``GET /matches`` (``status``, ``mine``, ``awaiting_me``, ``invited``,
        ``game``, ``page_size``, ``cursor``); flags are sent as ``true``/``false``."""
        params = {
            name: ("true" if value else "false") if isinstance(value, bool) else value
            for name, value in filters.items()
        }
        return cast(Page, self.request("GET", "/matches", params=params))

    def awaiting_me(self) -> list[Match]:
        """Active matches waiting for a move of yours."""
        return cast(list[Match], self.matches(awaiting_me=True, page_size=200)["results"])

    def events(self, match_id: str, after: int = 0, wait: int | None = None) -> EventPage:
        params: dict[str, Any] = {"after": after}
        if wait is not None:
            params["wait"] = wait
        return cast(EventPage, self.request("GET", f"/matches/{match_id}/events", params=params))

    def join(self, match_id: str, client_seed: str | None = None, seat: int | None = None) -> Match:
        body: dict[str, Any] = {}
        if client_seed is not None:
            body["client_seed"] = client_seed
        if seat is not None:
            body["seat"] = seat
        return cast(Match, self.request("POST", f"/matches/{match_id}/join", body))

    def decline(self, match_id: str) -> Match:
        return cast(Match, self.request("POST", f"/matches/{match_id}/decline"))

    def resign(self, match_id: str) -> Match:
        return cast(Match, self.request("POST", f"/matches/{match_id}/resign"))

    def move(self, match_id: str, move: Move, *, step: int | None = None) -> MoveAnswer:
        """Send a (sealed) move for ``step`` (read from the match when None); the answer holds
        the signed receipt. Sent with an Idempotency-Key, the same on a retry."""
        if step is None:
            step = int(self.match(match_id)["step"])
        body = {"step": step, "move": move}
        return cast(MoveAnswer, self.request("POST", f"/matches/{match_id}/moves", body))

    def commit(
        self,
        match_id: str,
        move: Move,
        *,
        step: int | None = None,
        seat: int | None = None,
        salt: str | None = None,
    ) -> Commitment:
        """Commit-reveal, first phase: send only the commitment to ``move`` (docs/fairness.md
        §5). Step and seat are read from the match when not given; the salt is fresh unless
        given. Keep the returned ``Commitment`` for ``reveal``."""
        if step is None or seat is None:
            current = self.match(match_id)
            step = int(current["step"]) if step is None else step
            you = current.get("you")
            if seat is None:
                if you is None:
                    raise ValueError("not seated in this match: no seat to commit for")
                seat = int(you)
        salt = salt or new_salt()
        digest = commitment_hash(match_id, step, seat, move, salt)
        answer = cast(
            MoveAnswer,
            self.request(
                "POST", f"/matches/{match_id}/moves", {"step": step, "commitment": digest}
            ),
        )
        return Commitment(match_id, step, seat, move, salt, digest, answer)

    def reveal(self, commitment: Commitment) -> MoveAnswer:
        """Commit-reveal, second phase: open ``commitment`` once the phase is ``reveal``."""
        body = {"step": commitment.step, "move": commitment.move, "salt": commitment.salt}
        return cast(
            MoveAnswer, self.request("POST", f"/matches/{commitment.match_id}/reveals", body)
        )

    # -- fairness ----------------------------------------------------------------------------

    def fairness_key(self) -> FairnessKey:
        """``GET /fairness/key`` (read again on every call: a key may have been rotated)."""
        self._key = cast(FairnessKey, self.request("GET", "/fairness/key"))
        return self._key

    def verify_receipt(self, receipt: Receipt | Mapping[str, Any], key: Any = None) -> bool:
        """Whether the receipt's Ed25519 signature holds, against ``key`` (a ``fairness_key()``
        answer or a public key's hex), else the server's key as last read (read once if never).
        Pin the key you trust rather than read it from the server you are checking, when you
        can."""
        if key is None:
            key = self._key or self.fairness_key()
        return verify_receipt(receipt, key)

    def audit(self, match_id: str) -> dict[str, Any]:
        """The ``facedown-transcript-v1`` transcript of a finished or aborted match."""
        return cast(dict[str, Any], self.request("GET", f"/matches/{match_id}/audit"))

    # -- challenges --------------------------------------------------------------------------

    def challenge(
        self,
        game: str,
        *,
        to: str | None = None,
        house_bot: str | None = None,
        options: dict[str, Any] | None = None,
        seats: int | None = None,
        time_control: dict[str, Any] | None = None,
        rated: bool | None = None,
        protocol: str | None = None,
        allow_bots: bool | None = None,
    ) -> Challenge:
        """Challenge a player (``to``), anyone (neither), or a house bot (``house_bot``: the
        challenge is accepted at once and carries ``match_id``). ``allow_bots``: an open
        challenge bot accounts may accept."""
        body: dict[str, Any] = {"game": game}
        if house_bot is not None:
            body["house_bot"] = house_bot
        else:
            body["to"] = to
        optional = {
            "options": options,
            "seats": seats,
            "time_control": time_control,
            "rated": rated,
            "protocol": protocol,
            "allow_bots": allow_bots,
        }
        body.update({field: value for field, value in optional.items() if value is not None})
        return cast(Challenge, self.request("POST", "/challenges", body))

    def challenges(self) -> Challenges:
        """Pending challenges to you (``incoming``) and from you (``outgoing``)."""
        return cast(Challenges, self.request("GET", "/challenges"))

    def get_challenge(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self.request("GET", f"/challenges/{challenge_id}"))

    def accept_challenge(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self.request("POST", f"/challenges/{challenge_id}/accept"))

    def decline_challenge(self, challenge_id: str, reason: DeclineReason = "generic") -> Challenge:
        return cast(
            Challenge,
            self.request("POST", f"/challenges/{challenge_id}/decline", {"reason": reason}),
        )

    def cancel_challenge(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self.request("POST", f"/challenges/{challenge_id}/cancel"))

    def bulk_pairing(
        self,
        game: str,
        pairings: list[list[str]],
        *,
        options: dict[str, Any] | None = None,
        time_control: dict[str, Any] | None = None,
        rated: bool | None = None,
    ) -> list[str]:
        """Up to 500 matches, one per entry of ``pairings`` (players' names in seat order),
        each waiting for its players to join; their ids, in order."""
        body: dict[str, Any] = {"game": game, "pairings": pairings}
        optional = {"options": options, "time_control": time_control, "rated": rated}
        body.update({field: value for field, value in optional.items() if value is not None})
        answer = cast(dict[str, list[str]], self.request("POST", "/bulk-pairings", body))
        return answer["matches"]

    # -- live streams ------------------------------------------------------------------------

    def account_stream(
        self, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        """Your notifications as they happen (``GET /accounts/me/stream``, NDJSON): a
        ``snapshot`` first, then ``your_move``, ``challenge``, ``match_finished``, … and a
        keep-alive item on every keep-alive line. Ends when the connection does; no bytes for
        ``read_timeout`` seconds (the server sends a keep-alive every 15 s) raise
        ``httpx.ReadTimeout``. Close the iterator to close the connection."""
        return self._stream("/accounts/me/stream", last_event_id, read_timeout)

    def match_stream(
        self, match_id: str, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        """A match's events as they commit (``GET /matches/{id}/stream``): a ``snapshot`` (the
        match) unless resuming after ``last_event_id``, then every event, ``id`` its seq."""
        return self._stream(f"/matches/{match_id}/stream", last_event_id, read_timeout)

    def _stream(
        self, path: str, last_event_id: str | None, read_timeout: float
    ) -> Generator[StreamItem, None, None]:
        extra = {"Accept": NDJSON}
        if last_event_id is not None:
            extra["Last-Event-ID"] = last_event_id
        timeout = httpx.Timeout(self.timeout, read=read_timeout)
        with self._http.stream("GET", path, headers=self._headers(extra), timeout=timeout) as r:
            if r.status_code >= 400:
                r.read()
                raise self._error(r)
            yield from parse_lines(r.iter_lines())
