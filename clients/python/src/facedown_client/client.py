"""``Client``: the Facedown HTTP API v1 (docs/api.md) over httpx, one typed method per call."""

from __future__ import annotations

import os
import time
import uuid
import warnings
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar, cast

import httpx

from facedown_client import areas
from facedown_client.areas import operation
from facedown_client.errors import ApiError, error_for
from facedown_client.fairness import commitment_hash, new_salt, verify_receipt
from facedown_client.streams import NDJSON, StreamItem, parse_lines
from facedown_client.types import (
    AccessToken,
    Account,
    Challenge,
    DeclineReason,
    EventPage,
    FairnessKey,
    Game,
    Match,
    Move,
    MoveAnswer,
    Receipt,
)

API_PREFIX = "/api/v1"
#: Answers worth sending the same request again for, under the same Idempotency-Key: the
#: first is still running (409 idempotency_in_progress), or the database was briefly away (503).
RETRIED_CODES = frozenset({"idempotency_in_progress", "service_unavailable"})
#: The name ``login`` gives its token unless told: logging in again replaces it.
LOGIN_TOKEN_NAME = "facedown-client"
#: Seconds a token made by ``login`` lasts unless told (30 days); ``expires_in=None``: never.
LOGIN_TOKEN_LIFETIME = 30 * 86400
#: Where ``Client.from_env`` looks for a token file when ``FACEDOWN_TOKEN_FILE`` is unset.
DEFAULT_TOKEN_FILE = Path("~/.config/facedown/token")
_KEEP = object()
F = TypeVar("F", bound=Callable[..., Any])


def _deprecated(new: str) -> Callable[[F], F]:
    """Mark a flat method of the first client as an alias of its area's method."""

    def mark(function: F) -> F:
        def alias(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(
                f"Client.{function.__name__} is deprecated: use client.{new}",
                DeprecationWarning,
                stacklevel=2,
            )
            return function(*args, **kwargs)

        alias.__name__ = function.__name__
        alias.__doc__ = f"Deprecated: ``client.{new}``."
        return cast(F, alias)

    return mark


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds: a number of seconds, or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


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
        max_throttle_wait: float = 60.0,
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
        self.max_throttle_wait = max_throttle_wait
        self._key: FairnessKey | None = None
        self.games = areas.GamesArea(self)
        self.players = areas.PlayersArea(self)
        self.matches = areas.MatchesArea(self)
        self.substitutes = areas.SubstitutesArea(self)
        self.challenges = areas.ChallengesArea(self)
        self.seeks = areas.SeeksArea(self)
        self.series = areas.SeriesArea(self)
        self.chat = areas.ChatArea(self)
        self.moderation = areas.ModerationArea(self)
        self.tournaments = areas.TournamentsArea(self)
        self.ladder = areas.LadderArea(self)
        self.tokens = areas.TokensArea(self)
        self.account = areas.AccountArea(self)
        self.notifications = areas.NotificationsArea(self)
        self.webhooks = areas.WebhooksArea(self)
        self.fairness = areas.FairnessArea(self)

    @classmethod
    def from_env(
        cls, base_url: str | None = None, *, token_file: str | Path | None = None, **options: Any
    ) -> Client:
        """A client with the token a bot author keeps out of the code: ``FACEDOWN_TOKEN``, else
        the first line of the file ``FACEDOWN_TOKEN_FILE`` names (else
        ``~/.config/facedown/token``, if it exists; ``token_file`` names it instead of the
        variable). The server is ``base_url``, else
        ``FACEDOWN_URL``, else ``http://127.0.0.1:8000``. Raises ``FacedownError`` when no token
        is found."""
        from facedown_client.errors import FacedownError

        url = base_url or os.environ.get("FACEDOWN_URL") or "http://127.0.0.1:8000"
        token = os.environ.get("FACEDOWN_TOKEN", "").strip()
        if not token:
            named = str(token_file) if token_file else os.environ.get("FACEDOWN_TOKEN_FILE")
            path = Path(named).expanduser() if named else DEFAULT_TOKEN_FILE.expanduser()
            if named or path.exists():
                try:
                    token = path.read_text().strip().splitlines()[0].strip()
                except (OSError, IndexError) as error:
                    raise FacedownError(f"no token in {path}: {error}") from error
        if not token:
            raise FacedownError(
                "no token: set FACEDOWN_TOKEN, or FACEDOWN_TOKEN_FILE to a file holding one"
            )
        return cls(url, token, **options)

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
        wait = _retry_after(response.headers.get("Retry-After"))
        return error_for(response.status_code, problem, wait)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        idempotent: bool = True,
        raw: bool = False,
    ) -> Any:
        """One API call: ``path`` below ``/api/v1``; the JSON answer (None for 204; the text
        when ``raw``).

        A POST carries an ``Idempotency-Key`` (a uuid4, the same on every retry) unless
        ``idempotent`` is false; GET, DELETE and keyed POSTs are retried after a network
        error. A 429 is waited out as the class says. Raises ``ApiError`` (its family's
        subclass) for a 4xx or 5xx answer."""
        extra: dict[str, str] = {"Accept": "*/*"} if raw else {}
        if method == "POST" and idempotent:
            extra["Idempotency-Key"] = str(uuid.uuid4())
        retryable = method != "POST" or idempotent
        attempt = throttled = 0
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
                if raw:
                    return response.text
                return (
                    None
                    if response.status_code == 204 or not response.content
                    else (response.json())
                )
            error = self._error(response)
            wait = error.retry_after
            if (
                error.status == 429
                and wait is not None
                and wait <= self.max_throttle_wait
                and throttled < self.retries
            ):
                throttled += 1  # a 429 changed nothing: sending it again is safe
                time.sleep(wait)
                continue
            if retryable and error.code in RETRIED_CODES and attempt < self.retries:
                attempt += 1
                time.sleep(min(5.0, error.retry_after or 0.2 * attempt))
                continue
            raise error

    # -- accounts and tokens -----------------------------------------------------------------

    @operation("POST", "/accounts/register")
    def register(self, username: str, password: str, email: str | None = None) -> str:
        """Create an account and use its token from now on; returns the token."""
        body: dict[str, Any] = {"username": username, "password": password}
        if email is not None:
            body["email"] = email
        answer = self.request("POST", "/accounts/register", body, idempotent=False)
        self.token = str(answer["token"])
        return self.token

    @operation("POST", "/accounts/token")
    def login(
        self,
        username: str,
        password: str,
        *,
        name: str = LOGIN_TOKEN_NAME,
        scopes: list[str] | None = None,
        expires_in: int | object | None = _KEEP,
        replace: bool = True,
    ) -> AccessToken:
        """Log in and use the token from now on. The token is named ``name`` and replaces the
        account's token of that name (``replace``), so a bot that logs in on every start holds
        one token; it expires after ``expires_in`` seconds (30 days unless given; None: never).
        ``scopes``: every scope the account may use unless given. Prefer a token from the
        environment (``Client.from_env``) to a password in a bot's files."""
        lifetime = LOGIN_TOKEN_LIFETIME if expires_in is _KEEP else expires_in
        body: dict[str, Any] = {"username": username, "password": password, "name": name}
        if scopes is not None:
            body["scopes"] = scopes
        if lifetime is not None:
            body["expires_in"] = lifetime
        if replace:
            body["replace"] = True
        answer = cast(AccessToken, self.request("POST", "/accounts/token", body, idempotent=False))
        self.token = answer["token"]
        return answer

    @operation("POST", "/accounts/logout")
    def logout(self) -> None:
        """Revoke the token in use (the account's others stay)."""
        self.request("POST", "/accounts/logout", idempotent=False)
        self.token = None

    def move(self, match_id: str, move: Move, *, step: int | None = None) -> MoveAnswer:
        """Send a (sealed) move for ``step`` (read from the match when None); the answer holds
        the signed receipt. Sent with an Idempotency-Key, the same on a retry."""
        if step is None:
            step = int(self.matches.get(match_id)["step"])
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
            current = self.matches.get(match_id)
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
        return self.matches.reveal(
            commitment.match_id, commitment.step, commitment.move, commitment.salt
        )

    # -- fairness ----------------------------------------------------------------------------

    def fairness_key(self) -> FairnessKey:
        """``GET /fairness/key`` (read again on every call: a key may have been rotated)."""
        self._key = cast(FairnessKey, self.request("GET", "/fairness/key"))  # fairness.key
        return self._key

    def verify_receipt(self, receipt: Receipt | Mapping[str, Any], key: Any = None) -> bool:
        """Whether the receipt's Ed25519 signature holds, against ``key`` (a ``fairness_key()``
        answer or a public key's hex), else the server's key as last read (read once if never).
        Pin the key you trust rather than read it from the server you are checking, when you
        can."""
        if key is None:
            key = self._key or self.fairness_key()
        return verify_receipt(receipt, key)

    # -- live streams ------------------------------------------------------------------------

    def stream(
        self, path: str, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        """Any NDJSON stream below ``/api/v1`` (``client.account.stream``,
        ``client.matches.stream``, ``client.tournaments.stream`` name them): items as they
        come, a keep-alive item on every keep-alive line. Ends when the connection does; no
        bytes for ``read_timeout`` seconds raise ``httpx.ReadTimeout``. Close the iterator to
        close the connection."""
        extra = {"Accept": NDJSON}
        if last_event_id is not None:
            extra["Last-Event-ID"] = last_event_id
        timeout = httpx.Timeout(self.timeout, read=read_timeout)
        with self._http.stream("GET", path, headers=self._headers(extra), timeout=timeout) as r:
            if r.status_code >= 400:
                r.read()
                raise self._error(r)
            yield from parse_lines(r.iter_lines())

    # -- the first client's flat names: deprecated aliases -----------------------------------

    @_deprecated("account.get()")
    def me(self) -> Account:
        return self.account.get()

    @_deprecated("account.become_bot()")
    def become_bot(self) -> Account:
        return self.account.become_bot()

    @_deprecated("tokens.create(...)")
    def create_token(
        self, name: str, scopes: list[str], expires_in: int | None = None
    ) -> AccessToken:
        return self.tokens.create(name, scopes, expires_in)

    @_deprecated("tokens.delete(id)")
    def delete_token(self, token_id: int) -> None:
        self.tokens.delete(token_id)

    @_deprecated("games.get(slug)")
    def game(self, slug: str) -> Game:
        return self.games.get(slug)

    @_deprecated("matches.create(...)")
    def create_match(self, game: str, seats: list[Any], **fields: Any) -> Match:
        return self.matches.create(game, seats, **fields)

    @_deprecated("matches.get(id)")
    def match(self, match_id: str) -> Match:
        return self.matches.get(match_id)

    @_deprecated("matches.awaiting_me()")
    def awaiting_me(self) -> list[Match]:
        return self.matches.awaiting_me()

    @_deprecated("matches.events(id)")
    def events(self, match_id: str, after: int = 0, wait: int | None = None) -> EventPage:
        return self.matches.events(match_id, after, wait)

    @_deprecated("matches.join(id)")
    def join(self, match_id: str, client_seed: str | None = None, seat: int | None = None) -> Match:
        return self.matches.join(match_id, client_seed, seat)

    @_deprecated("matches.decline(id)")
    def decline(self, match_id: str) -> Match:
        return self.matches.decline(match_id)

    @_deprecated("matches.resign(id)")
    def resign(self, match_id: str) -> Match:
        return self.matches.resign(match_id)

    @_deprecated("matches.audit(id)")
    def audit(self, match_id: str) -> dict[str, Any]:
        return self.matches.audit(match_id)

    @_deprecated("challenges.create(...)")
    def challenge(self, game: str, **fields: Any) -> Challenge:
        return self.challenges.create(game, **fields)

    @_deprecated("challenges.get(id)")
    def get_challenge(self, challenge_id: str) -> Challenge:
        return self.challenges.get(challenge_id)

    @_deprecated("challenges.accept(id)")
    def accept_challenge(self, challenge_id: str) -> Challenge:
        return self.challenges.accept(challenge_id)

    @_deprecated("challenges.decline(id, reason)")
    def decline_challenge(self, challenge_id: str, reason: DeclineReason = "generic") -> Challenge:
        return self.challenges.decline(challenge_id, reason)

    @_deprecated("challenges.cancel(id)")
    def cancel_challenge(self, challenge_id: str) -> Challenge:
        return self.challenges.cancel(challenge_id)

    @_deprecated("challenges.bulk_pairing(...)")
    def bulk_pairing(self, game: str, pairings: list[list[str]], **fields: Any) -> list[str]:
        return self.challenges.bulk_pairing(game, pairings, **fields)

    @_deprecated("account.stream(...)")
    def account_stream(
        self, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        return self.account.stream(last_event_id, read_timeout)

    @_deprecated("matches.stream(id, ...)")
    def match_stream(
        self, match_id: str, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        return self.matches.stream(match_id, last_event_id, read_timeout)
