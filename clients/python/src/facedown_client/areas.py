"""The API by area: ``client.matches``, ``client.challenges``, ``client.tournaments``, ….

Each method is one route of docs/api.md, marked with ``@operation(METHOD, PATH)`` (the path
below ``/api/v1`` as the OpenAPI schema spells it), so a test can list the schema's operations
and name any the client lacks. Answers are the server's JSON; the shapes the bot framework
reads are typed in ``facedown_client.types``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from facedown_client.types import (
    AccessToken,
    Account,
    Challenge,
    Challenges,
    DeclineReason,
    EventPage,
    FairnessKey,
    Game,
    Ladder,
    LadderEntry,
    Match,
    Move,
    MoveAnswer,
    Page,
)

if TYPE_CHECKING:
    from facedown_client.client import Client
    from facedown_client.streams import StreamItem

F = TypeVar("F", bound=Callable[..., Any])
JSON = dict[str, Any]
# Spelled here: inside an area, ``list`` is its method.
Names = list[str]
Pairings = list[list[str]]
JSONList = list[JSON]
TokenList = list[AccessToken]
MatchList = list[Match]
Seats = list[Any]


def operation(method: str, path: str) -> Callable[[F], F]:
    """Mark a method as the client's call of ``METHOD path`` (a schema operation)."""

    def mark(function: F) -> F:
        marked: list[tuple[str, str]] = getattr(function, "__facedown_operations__", [])
        function.__facedown_operations__ = [*marked, (method, path)]  # type: ignore[attr-defined]
        return function

    return mark


def operations_of(area: object) -> set[tuple[str, str]]:
    """Every ``(METHOD, path)`` the methods of ``area`` call."""
    found: set[tuple[str, str]] = set()
    for name in dir(type(area)):
        found.update(getattr(getattr(type(area), name), "__facedown_operations__", []))
    return found


def _given(**fields: Any) -> JSON:
    """The fields that were given: None means "not sent", never ``null``."""
    return {name: value for name, value in fields.items() if value is not None}


def _warn(old: str, new: str) -> None:
    warnings.warn(f"client.{old} is deprecated: use client.{new}", DeprecationWarning, stacklevel=3)


def _flags(filters: dict[str, Any]) -> JSON:
    return {
        name: ("true" if value else "false") if isinstance(value, bool) else value
        for name, value in filters.items()
        if value is not None
    }


class Area:
    def __init__(self, client: Client) -> None:
        self._client = client

    def _call(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self._client.request(method, path, body, **kwargs)


class GamesArea(Area):
    def __call__(self) -> list[Game]:
        """Deprecated spelling of ``list`` (the client's flat ``games()``)."""
        _warn("games()", "games.list()")
        return self.list()

    @operation("GET", "/games")
    def list(self) -> list[Game]:
        return cast(list[Game], self._call("GET", "/games"))

    @operation("GET", "/games/{slug}")
    def get(self, slug: str) -> Game:
        return cast(Game, self._call("GET", f"/games/{slug}"))

    @operation("GET", "/games/{slug}/leaderboard")
    def leaderboard(self, slug: str, **filters: Any) -> JSON:
        """``bots=True`` ranks the bot accounts; ``page_size``, ``cursor``."""
        return cast(JSON, self._call("GET", f"/games/{slug}/leaderboard", params=_flags(filters)))


class PlayersArea(Area):
    @operation("GET", "/players/{username}")
    def get(self, username: str) -> JSON:
        return cast(JSON, self._call("GET", f"/players/{username}"))


class MatchesArea(Area):
    def __call__(self, **filters: Any) -> Page:
        """Deprecated spelling of ``list`` (the client's flat ``matches()``)."""
        _warn("matches(...)", "matches.list(...)")
        return self.list(**filters)

    @operation("GET", "/matches")
    def list(self, **filters: Any) -> Page:
        """One page (``status``, ``mine``, ``awaiting_me``, ``invited``, ``game``,
        ``page_size``, ``cursor``); flags are sent as ``true``/``false``."""
        return cast(Page, self._call("GET", "/matches", params=_flags(filters)))

    def awaiting_me(self) -> MatchList:
        """Active matches waiting for a move of yours."""
        return cast(MatchList, self.list(awaiting_me=True, page_size=200)["results"])

    @operation("POST", "/matches")
    def create(self, game: str, seats: Seats, **fields: Any) -> Match:
        """``seats`` as docs/api.md spells them (``"me"``, ``{"user": name}``, ``"open"``,
        ``{"bot": name}``); ``fields``: ``options``, ``protocol``, ``time_control``, …"""
        body = {"game": game, "seats": seats, **_given(**fields)}
        return cast(Match, self._call("POST", "/matches", body))

    @operation("GET", "/matches/{match_id}")
    def get(self, match_id: str) -> Match:
        return cast(Match, self._call("GET", f"/matches/{match_id}"))

    @operation("GET", "/matches/{match_id}/events")
    def events(self, match_id: str, after: int = 0, wait: int | None = None) -> EventPage:
        params = _given(after=after, wait=wait)
        return cast(EventPage, self._call("GET", f"/matches/{match_id}/events", params=params))

    @operation("POST", "/matches/{match_id}/join")
    def join(self, match_id: str, client_seed: str | None = None, seat: int | None = None) -> Match:
        body = _given(client_seed=client_seed, seat=seat)
        return cast(Match, self._call("POST", f"/matches/{match_id}/join", body))

    @operation("POST", "/matches/{match_id}/decline")
    def decline(self, match_id: str, reason: str | None = None) -> Match:
        body = _given(reason=reason)
        return cast(Match, self._call("POST", f"/matches/{match_id}/decline", body))

    @operation("POST", "/matches/{match_id}/resign")
    def resign(self, match_id: str) -> Match:
        return cast(Match, self._call("POST", f"/matches/{match_id}/resign"))

    @operation("POST", "/matches/{match_id}/moves")
    def move(self, match_id: str, move: Move, *, step: int | None = None) -> MoveAnswer:
        """A (sealed) move for ``step`` (read from the match when None)."""
        return self._client.move(match_id, move, step=step)

    @operation("POST", "/matches/{match_id}/reveals")
    def reveal(self, match_id: str, step: int, move: Move, salt: str) -> MoveAnswer:
        """Commit-reveal's second phase by hand (``Client.reveal`` takes a ``Commitment``)."""
        body = {"step": step, "move": move, "salt": salt}
        return cast(MoveAnswer, self._call("POST", f"/matches/{match_id}/reveals", body))

    @operation("GET", "/matches/{match_id}/audit")
    def audit(self, match_id: str) -> JSON:
        """The ``facedown-transcript-v1`` transcript of a finished or aborted match."""
        return cast(JSON, self._call("GET", f"/matches/{match_id}/audit"))

    @operation("POST", "/matches/{match_id}/rematch")
    def rematch(self, match_id: str) -> JSON:
        return cast(JSON, self._call("POST", f"/matches/{match_id}/rematch"))

    @operation("GET", "/matches/{match_id}/stream")
    def stream(
        self, match_id: str, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        """The match's events as they commit (NDJSON): a ``snapshot`` unless resuming."""
        return self._client.stream(f"/matches/{match_id}/stream", last_event_id, read_timeout)

    @operation("GET", "/matches/{match_id}/conditional-moves")
    def conditional_moves(self, match_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/matches/{match_id}/conditional-moves"))

    @operation("PUT", "/matches/{match_id}/conditional-moves")
    def set_conditional_moves(self, match_id: str, rules: JSONList) -> JSON:
        """Premoves for the coming steps (docs/api.md, "Conditional moves")."""
        body = {"rules": rules}
        return cast(JSON, self._call("PUT", f"/matches/{match_id}/conditional-moves", body))

    @operation("DELETE", "/matches/{match_id}/conditional-moves")
    def clear_conditional_moves(self, match_id: str) -> None:
        self._call("DELETE", f"/matches/{match_id}/conditional-moves")

    @operation("GET", "/matches/{match_id}/proposals")
    def proposals(self, match_id: str) -> Any:
        return self._call("GET", f"/matches/{match_id}/proposals")

    @operation("POST", "/matches/{match_id}/proposals")
    def propose(self, match_id: str, kind: str, until: str | None = None) -> JSON:
        """A proposal to the table (``kind``: a draw, an abort, …; docs/api.md)."""
        body = {"kind": kind, **_given(until=until)}
        return cast(JSON, self._call("POST", f"/matches/{match_id}/proposals", body))

    @operation("POST", "/matches/{match_id}/proposals/{proposal_id}/accept")
    def accept_proposal(self, match_id: str, proposal_id: int) -> JSON:
        path = f"/matches/{match_id}/proposals/{proposal_id}/accept"
        return cast(JSON, self._call("POST", path))

    @operation("POST", "/matches/{match_id}/proposals/{proposal_id}/decline")
    def decline_proposal(self, match_id: str, proposal_id: int) -> JSON:
        path = f"/matches/{match_id}/proposals/{proposal_id}/decline"
        return cast(JSON, self._call("POST", path))

    @operation("POST", "/matches/{match_id}/proposals/{proposal_id}/withdraw")
    def withdraw_proposal(self, match_id: str, proposal_id: int) -> JSON:
        path = f"/matches/{match_id}/proposals/{proposal_id}/withdraw"
        return cast(JSON, self._call("POST", path))


class SubstitutesArea(Area):
    @operation("GET", "/substitutes")
    def list(self) -> Any:
        """Open seat offers you could take."""
        return self._call("GET", "/substitutes")

    @operation("GET", "/matches/{match_id}/substitutes")
    def of_match(self, match_id: str) -> Any:
        return self._call("GET", f"/matches/{match_id}/substitutes")

    @operation("POST", "/matches/{match_id}/substitutes")
    def offer(self, match_id: str, seat: int, invitee: str | None = None) -> JSON:
        """Offer ``seat`` to a substitute (``invitee``, or anyone; docs/api.md)."""
        body = {"seat": seat, **_given(invitee=invitee)}
        return cast(JSON, self._call("POST", f"/matches/{match_id}/substitutes", body))

    @operation("POST", "/matches/{match_id}/substitutes/{offer_id}/accept")
    def accept(self, match_id: str, offer_id: int) -> JSON:
        path = f"/matches/{match_id}/substitutes/{offer_id}/accept"
        return cast(JSON, self._call("POST", path))

    @operation("POST", "/matches/{match_id}/substitutes/{offer_id}/decline")
    def decline(self, match_id: str, offer_id: int) -> JSON:
        path = f"/matches/{match_id}/substitutes/{offer_id}/decline"
        return cast(JSON, self._call("POST", path))

    @operation("POST", "/matches/{match_id}/substitutes/{offer_id}/withdraw")
    def withdraw(self, match_id: str, offer_id: int) -> JSON:
        path = f"/matches/{match_id}/substitutes/{offer_id}/withdraw"
        return cast(JSON, self._call("POST", path))


class ChallengesArea(Area):
    def __call__(self) -> Challenges:
        """Deprecated spelling of ``list`` (the client's flat ``challenges()``)."""
        _warn("challenges()", "challenges.list()")
        return self.list()

    @operation("GET", "/challenges")
    def list(self) -> Challenges:
        """Pending challenges to you (``incoming``), from you (``outgoing``), and ``open``."""
        return cast(Challenges, self._call("GET", "/challenges"))

    @operation("POST", "/challenges")
    def create(
        self,
        game: str,
        *,
        to: str | None = None,
        house_bot: str | None = None,
        options: JSON | None = None,
        seats: int | None = None,
        time_control: JSON | None = None,
        rated: bool | None = None,
        protocol: str | None = None,
        allow_bots: bool | None = None,
        expires_in: int | None = None,
    ) -> Challenge:
        """Challenge a player (``to``), anyone (neither: an open challenge), or a house bot
        (``house_bot``: accepted at once, the answer carries ``match_id``). Fields left None
        are not sent."""
        body = {
            "game": game,
            **_given(
                to=to,
                house_bot=house_bot,
                options=options,
                seats=seats,
                time_control=time_control,
                rated=rated,
                protocol=protocol,
                allow_bots=allow_bots,
                expires_in=expires_in,
            ),
        }
        return cast(Challenge, self._call("POST", "/challenges", body))

    @operation("GET", "/challenges/{challenge_id}")
    def get(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self._call("GET", f"/challenges/{challenge_id}"))

    @operation("POST", "/challenges/{challenge_id}/accept")
    def accept(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self._call("POST", f"/challenges/{challenge_id}/accept"))

    @operation("POST", "/challenges/{challenge_id}/decline")
    def decline(self, challenge_id: str, reason: DeclineReason = "generic") -> Challenge:
        body = {"reason": reason}
        return cast(Challenge, self._call("POST", f"/challenges/{challenge_id}/decline", body))

    @operation("POST", "/challenges/{challenge_id}/cancel")
    def cancel(self, challenge_id: str) -> Challenge:
        return cast(Challenge, self._call("POST", f"/challenges/{challenge_id}/cancel"))

    @operation("POST", "/bulk-pairings")
    def bulk_pairing(
        self,
        game: str,
        pairings: Pairings,
        *,
        options: JSON | None = None,
        time_control: JSON | None = None,
        rated: bool | None = None,
        protocol: str | None = None,
    ) -> Names:
        """Up to 500 matches (players' names in seat order), each waiting for its players to
        join; their ids, in order."""
        body = {
            "game": game,
            "pairings": pairings,
            **_given(options=options, time_control=time_control, rated=rated, protocol=protocol),
        }
        return cast(Names, self._call("POST", "/bulk-pairings", body)["matches"])


class SeeksArea(Area):
    @operation("GET", "/seeks")
    def list(self, **filters: Any) -> Any:
        return self._call("GET", "/seeks", params=_flags(filters))

    @operation("POST", "/seeks")
    def create(self, game: str, players: int = 2, **fields: Any) -> JSON:
        """Ask for a match with whoever asks for the same (docs/api.md, "Seeks"): ``options``,
        ``time_control``, ``rating_range``, ``allow_bots``, ``client_seed``."""
        body = {"game": game, "players": players, **_given(**fields)}
        return cast(JSON, self._call("POST", "/seeks", body))

    @operation("GET", "/seeks/{seek_id}")
    def get(self, seek_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/seeks/{seek_id}"))

    @operation("DELETE", "/seeks/{seek_id}")
    def cancel(self, seek_id: str) -> None:
        self._call("DELETE", f"/seeks/{seek_id}")


class SeriesArea(Area):
    @operation("POST", "/series")
    def create(self, game: str, seats: Seats, matches: int, **fields: Any) -> JSON:
        """A series of ``matches`` matches between the same ``seats`` (docs/api.md)."""
        body = {"game": game, "seats": seats, "matches": matches, **_given(**fields)}
        return cast(JSON, self._call("POST", "/series", body))

    @operation("GET", "/series/{series_id}")
    def get(self, series_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/series/{series_id}"))


class ChatArea(Area):
    @operation("GET", "/matches/{match_id}/chat")
    def messages(self, match_id: str) -> Any:
        return self._call("GET", f"/matches/{match_id}/chat")

    @operation("POST", "/matches/{match_id}/chat")
    def say(self, match_id: str, text: str) -> JSON:
        body = {"text": text}
        return cast(JSON, self._call("POST", f"/matches/{match_id}/chat", body))

    @operation("POST", "/matches/{match_id}/chat/{seq}/hide")
    def hide(self, match_id: str, seq: int, reason: str) -> JSON:
        body = {"reason": reason}
        return cast(JSON, self._call("POST", f"/matches/{match_id}/chat/{seq}/hide", body))

    @operation("GET", "/chat/mutes")
    def mutes(self) -> Any:
        return self._call("GET", "/chat/mutes")

    @operation("POST", "/chat/mutes")
    def mute(self, player: str, muted: bool = True) -> JSON:
        """Mute (or, ``muted=False``, unmute) a player's chat for you."""
        body = {"player": player, "muted": muted}
        return cast(JSON, self._call("POST", "/chat/mutes", body))


class ModerationArea(Area):
    """Reports to the moderators and the sanctions on your own account (docs/moderation.md)."""

    @operation("POST", "/reports")
    def report(
        self,
        kind: str,
        reason: str,
        *,
        match: str | None = None,
        seq: int | None = None,
        player: str | None = None,
        comment: str | None = None,
    ) -> JSON:
        """Report a chat message (``match`` and ``seq``), a player (``player``) or a match
        (``match``); ``reason`` is abuse, abandonment, outside_help, spam or other."""
        body = _given(
            kind=kind, reason=reason, match=match, seq=seq, player=player, comment=comment
        )
        return cast(JSON, self._call("POST", "/reports", body))

    @operation("GET", "/sanctions")
    def sanctions(self) -> JSON:
        """The sanctions on your own account, in force and past."""
        return cast(JSON, self._call("GET", "/sanctions"))

    @operation("POST", "/sanctions/{sanction_id}/appeal")
    def appeal(self, sanction_id: int, text: str) -> JSON:
        """Appeal a sanction once; the appeal reaches the moderators' queue."""
        body = {"text": text}
        return cast(JSON, self._call("POST", f"/sanctions/{sanction_id}/appeal", body))


class TournamentsArea(Area):
    @operation("GET", "/tournaments")
    def list(self, **filters: Any) -> JSON:
        """``status``, ``game``, ``mine=True``."""
        return cast(JSON, self._call("GET", "/tournaments", params=_flags(filters)))

    @operation("POST", "/tournaments")
    def create(self, name: str, game: str, **settings: Any) -> JSON:
        """A tournament you organise (its settings as docs/api.md, "Tournaments")."""
        body = {"name": name, "game": game, **_given(**settings)}
        return cast(JSON, self._call("POST", "/tournaments", body))

    @operation("GET", "/tournaments/{tournament_id}")
    def get(self, tournament_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/tournaments/{tournament_id}"))

    def _act(self, tournament_id: str, action: str, body: Any = None) -> JSON:
        return cast(JSON, self._call("POST", f"/tournaments/{tournament_id}/{action}", body))

    @operation("POST", "/tournaments/{tournament_id}/join")
    def join(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "join")

    @operation("POST", "/tournaments/{tournament_id}/decline")
    def decline(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "decline")

    @operation("POST", "/tournaments/{tournament_id}/withdraw")
    def withdraw(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "withdraw")

    @operation("POST", "/tournaments/{tournament_id}/berserk")
    def berserk(self, tournament_id: str, match_id: str) -> JSON:
        """Arena with berserk: halve your bank in your running match of it before your first
        move, for one more point on a win."""
        return self._act(tournament_id, "berserk", {"match": match_id})

    @operation("POST", "/tournaments/{tournament_id}/start")
    def start(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "start")

    @operation("POST", "/tournaments/{tournament_id}/pause")
    def pause(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "pause")

    @operation("POST", "/tournaments/{tournament_id}/resume")
    def resume(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "resume")

    @operation("POST", "/tournaments/{tournament_id}/end")
    def end(self, tournament_id: str) -> JSON:
        return self._act(tournament_id, "end")

    @operation("POST", "/tournaments/{tournament_id}/players")
    def invite(self, tournament_id: str, username: str) -> JSON:
        return self._act(tournament_id, "players", {"username": username})

    @operation("POST", "/tournaments/{tournament_id}/players/{username}/disqualify")
    def disqualify(self, tournament_id: str, username: str, reason: str | None = None) -> JSON:
        return self._act(tournament_id, f"players/{username}/disqualify", _given(reason=reason))

    @operation("GET", "/tournaments/{tournament_id}/standings")
    def standings(self, tournament_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/tournaments/{tournament_id}/standings"))

    @operation("GET", "/tournaments/{tournament_id}/crosstable")
    def crosstable(self, tournament_id: str) -> JSON:
        return cast(JSON, self._call("GET", f"/tournaments/{tournament_id}/crosstable"))

    @operation("GET", "/tournaments/{tournament_id}/rounds")
    def rounds(self, tournament_id: str) -> JSONList:
        return cast(JSONList, self._call("GET", f"/tournaments/{tournament_id}/rounds"))

    @operation("GET", "/tournaments/{tournament_id}/events")
    def events(self, tournament_id: str) -> JSONList:
        return cast(JSONList, self._call("GET", f"/tournaments/{tournament_id}/events"))

    @operation("GET", "/tournaments/{tournament_id}/export")
    def export(self, tournament_id: str, format: str = "json") -> Any:
        """``format``: ``json`` (parsed) ; ``csv`` and ``trf`` come back as text."""
        path = f"/tournaments/{tournament_id}/export"
        return self._client.request("GET", path, params={"format": format}, raw=format != "json")

    @operation("GET", "/tournaments/{tournament_id}/stream")
    def stream(
        self, tournament_id: str, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        path = f"/tournaments/{tournament_id}/stream"
        return self._client.stream(path, last_event_id, read_timeout)


class LadderArea(Area):
    """A game's ladder: the server pairs its entrants with each other (docs/bots.md)."""

    @operation("GET", "/ladders/{game}")
    def get(self, game: str) -> Ladder:
        """The public ladder: ratings, crosstable, matches with transcripts, verification."""
        return cast(Ladder, self._call("GET", f"/ladders/{game}"))

    @operation("GET", "/ladders/{game}/entry")
    def entry(self, game: str) -> LadderEntry:
        """Your entry: ``status`` (``active``, ``paused``, ``left``), ``paused_reason``."""
        return cast(LadderEntry, self._call("GET", f"/ladders/{game}/entry"))

    @operation("POST", "/ladders/{game}/entry")
    def enter(
        self,
        game: str,
        *,
        seats: list[int] | None = None,
        options: JSONList | None = None,
        time_controls: JSONList | None = None,
        max_concurrent: int | None = None,
    ) -> LadderEntry:
        """Enter (or change what your entry accepts): paired until you ``leave``."""
        body = _given(
            seats=seats, options=options, time_controls=time_controls, max_concurrent=max_concurrent
        )
        return cast(LadderEntry, self._call("POST", f"/ladders/{game}/entry", body))

    @operation("DELETE", "/ladders/{game}/entry")
    def leave(self, game: str) -> LadderEntry:
        return cast(LadderEntry, self._call("DELETE", f"/ladders/{game}/entry"))

    @operation("POST", "/ladders/{game}/entry/resume")
    def resume(self, game: str) -> LadderEntry:
        """Be paired again after the server paused your entry."""
        return cast(LadderEntry, self._call("POST", f"/ladders/{game}/entry/resume"))


class TokensArea(Area):
    def __call__(self) -> TokenList:
        """Deprecated spelling of ``list`` (the client's flat ``tokens()``)."""
        _warn("tokens()", "tokens.list()")
        return self.list()

    @operation("GET", "/accounts/me/tokens")
    def list(self) -> TokenList:
        return cast(TokenList, self._call("GET", "/accounts/me/tokens"))

    @operation("POST", "/accounts/me/tokens")
    def create(self, name: str, scopes: Names, expires_in: int | None = None) -> AccessToken:
        """A new personal access token; its ``token`` is shown this once."""
        body = {"name": name, "scopes": scopes, **_given(expires_in=expires_in)}
        return cast(AccessToken, self._call("POST", "/accounts/me/tokens", body))

    @operation("DELETE", "/accounts/me/tokens/{token_id}")
    def delete(self, token_id: int) -> None:
        self._call("DELETE", f"/accounts/me/tokens/{token_id}")

    @operation("POST", "/accounts/token/rotate")
    def rotate(self, current_password: str) -> str:
        """A new secret for the token in use (same name, scopes, expiry); used from now on."""
        body = {"current_password": current_password}
        token = str(self._call("POST", "/accounts/token/rotate", body, idempotent=False)["token"])
        self._client.token = token
        return token


class AccountArea(Area):
    @operation("GET", "/accounts/me")
    def get(self) -> Account:
        return cast(Account, self._call("GET", "/accounts/me"))

    @operation("PATCH", "/accounts/me")
    def update(self, **fields: Any) -> Account:
        """E-mail, display settings, ``invitations_from_bots``, … (docs/api.md)."""
        return cast(Account, self._call("PATCH", "/accounts/me", _given(**fields)))

    @operation("DELETE", "/accounts/me")
    def close(self, **fields: Any) -> Any:
        """Close the account (docs/api.md, "Closing an account"): for good."""
        return self._call("DELETE", "/accounts/me", _given(**fields))

    @operation("POST", "/accounts/me/bot")
    def become_bot(self) -> Account:
        """Mark the account a bot account, for good; its tokens end (log in again)."""
        account = cast(Account, self._call("POST", "/accounts/me/bot"))
        self._client.token = None
        return account

    @operation("POST", "/accounts/password")
    def change_password(self, current_password: str, password: str) -> JSON:
        """Every token ends; the answer's fresh token is used from now on."""
        body = {"current_password": current_password, "password": password}
        answer = cast(JSON, self._call("POST", "/accounts/password", body, idempotent=False))
        if answer and answer.get("token"):
            self._client.token = str(answer["token"])
        return answer

    @operation("POST", "/accounts/password-reset")
    def request_password_reset(self, email: str) -> Any:
        return self._call("POST", "/accounts/password-reset", {"email": email}, idempotent=False)

    @operation("POST", "/accounts/password-reset/confirm")
    def confirm_password_reset(self, **fields: Any) -> Any:
        path = "/accounts/password-reset/confirm"
        return self._call("POST", path, _given(**fields), idempotent=False)

    @operation("GET", "/accounts/email/verify")
    def verify_email(self, **params: Any) -> Any:
        return self._call("GET", "/accounts/email/verify", params=_flags(params))

    @operation("GET", "/accounts/me/export")
    def export(self) -> JSON:
        """Your data export."""
        return cast(JSON, self._call("GET", "/accounts/me/export"))

    @operation("GET", "/accounts/me/vacation")
    def vacation(self) -> JSON:
        return cast(JSON, self._call("GET", "/accounts/me/vacation"))

    @operation("POST", "/accounts/me/vacation")
    def start_vacation(self, until: str) -> JSON:
        """Away until ``until`` (an ISO date-time): your clocks wait (docs/api.md)."""
        body = {"until": until}
        return cast(JSON, self._call("POST", "/accounts/me/vacation", body))

    @operation("PATCH", "/accounts/me/vacation")
    def update_vacation(self, **fields: Any) -> JSON:
        return cast(JSON, self._call("PATCH", "/accounts/me/vacation", _given(**fields)))

    @operation("DELETE", "/accounts/me/vacation")
    def end_vacation(self) -> Any:
        return self._call("DELETE", "/accounts/me/vacation")

    @operation("POST", "/accounts/me/calendar-key")
    def new_calendar_key(self) -> JSON:
        return cast(JSON, self._call("POST", "/accounts/me/calendar-key"))

    @operation("GET", "/accounts/me/deadlines.ics")
    def deadlines_ics(self, **params: Any) -> str:
        """Your deadlines as an iCalendar file (text)."""
        path = "/accounts/me/deadlines.ics"
        return cast(str, self._client.request("GET", path, params=_flags(params), raw=True))

    @operation("POST", "/accounts/stream-ticket")
    def stream_ticket(self, streams: Names) -> JSON:
        """A short-lived ticket for a browser's EventSource (docs/live.md)."""
        body = {"streams": streams}
        return cast(JSON, self._call("POST", "/accounts/stream-ticket", body))

    @operation("GET", "/accounts/me/stream")
    def stream(
        self, last_event_id: str | None = None, read_timeout: float = 60.0
    ) -> Generator[StreamItem, None, None]:
        """Your notifications as they happen (NDJSON): a ``snapshot`` first, then
        ``your_move``, ``challenge``, ``match_finished``, …; resumes after ``last_event_id``."""
        return self._client.stream("/accounts/me/stream", last_event_id, read_timeout)


class NotificationsArea(Area):
    @operation("GET", "/accounts/me/notifications")
    def settings(self) -> JSON:
        return cast(JSON, self._call("GET", "/accounts/me/notifications"))

    @operation("PATCH", "/accounts/me/notifications")
    def update(self, **fields: bool) -> JSON:
        """``email_your_move``, ``push_deadline_soon``, … (docs/api.md)."""
        return cast(JSON, self._call("PATCH", "/accounts/me/notifications", _given(**fields)))

    @operation("GET", "/accounts/notifications/unsubscribe")
    def unsubscribe_page(self, **params: Any) -> Any:
        return self._call("GET", "/accounts/notifications/unsubscribe", params=_flags(params))

    @operation("POST", "/accounts/notifications/unsubscribe")
    def unsubscribe(self, **fields: Any) -> Any:
        path = "/accounts/notifications/unsubscribe"
        return self._call("POST", path, _given(**fields), idempotent=False)

    @operation("GET", "/accounts/push-key")
    def push_key(self) -> JSON:
        return cast(JSON, self._call("GET", "/accounts/push-key"))

    @operation("POST", "/accounts/me/push-subscriptions")
    def subscribe_push(self, **fields: Any) -> JSON:
        path = "/accounts/me/push-subscriptions"
        return cast(JSON, self._call("POST", path, _given(**fields)))

    @operation("DELETE", "/accounts/me/push-subscriptions/{subscription_id}")
    def unsubscribe_push(self, subscription_id: int) -> None:
        self._call("DELETE", f"/accounts/me/push-subscriptions/{subscription_id}")


class WebhooksArea(Area):
    @operation("GET", "/accounts/me/webhooks")
    def list(self) -> Any:
        return self._call("GET", "/accounts/me/webhooks")

    @operation("POST", "/accounts/me/webhooks")
    def create(self, url: str, **fields: Any) -> JSON:
        body = {"url": url, **_given(**fields)}
        return cast(JSON, self._call("POST", "/accounts/me/webhooks", body))

    @operation("GET", "/accounts/me/webhooks/{webhook_id}")
    def get(self, webhook_id: int) -> JSON:
        return cast(JSON, self._call("GET", f"/accounts/me/webhooks/{webhook_id}"))

    @operation("DELETE", "/accounts/me/webhooks/{webhook_id}")
    def delete(self, webhook_id: int) -> None:
        self._call("DELETE", f"/accounts/me/webhooks/{webhook_id}")

    @operation("GET", "/accounts/me/webhooks/{webhook_id}/deliveries")
    def deliveries(self, webhook_id: int) -> Any:
        return self._call("GET", f"/accounts/me/webhooks/{webhook_id}/deliveries")


class FairnessArea(Area):
    @operation("GET", "/fairness/key")
    def key(self) -> FairnessKey:
        """The receipt-signing key (read again on every call: a key may have been rotated)."""
        return self._client.fairness_key()
