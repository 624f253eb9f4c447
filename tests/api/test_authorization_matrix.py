"""The authorization matrix: every API endpoint, every kind of requester, every match state.

Actors (docs/api.md, "Auth"):

- ``anonymous``: no credentials;
- ``deactivated``: the token of a user whose account was deactivated;
- ``other_user``: a logged-in user who plays matches of their own, not this one;
- ``seated``: the match's creator, seat 0 (in the active match, the seat whose bid is sealed);
- ``other_seat``: seat 1 of the same match (in the open match, an invitee who has not accepted);
- ``spectator``: a logged-in user with no seat anywhere (any user may read any match);
- ``operator``: a staff superuser through the API, where staff has no extra power: it reads
  and acts as any other user without a seat. The console's side of the matrix is
  ``tests/admin/test_console_authorization.py``.

States: ``open`` (creator seated, one invitation pending, one open seat), ``active`` (step 1
resolved, step 2 open, the creator's bid sealed, the other seat to act) and ``finished``. Rows
that do not name a match run once, in state ``-``.

Every endpoint is found by walking the URL patterns under ``/api/`` (and the OpenAPI schema):
an endpoint without a row fails ``test_every_api_endpoint_has_a_row``. Each cell is one
subtest named ``METHOD route | actor | state``; every request that changes something runs in a
savepoint rolled back afterwards, so every cell shares one set of matches. A refused request
must leave the database as it was.

Leaks: every read and refusal is sent again in a second world (``tests.leaks.alternatives``,
one per group of actors who see the same) that differs only in what those actors may not know:
the creator's sealed bid in the active match and everything ``engine.shuffle_hidden`` redraws
for their seat (the prize order). Every read
and every refusal must answer byte for byte the same in both worlds; a 2xx body must hold no
receipt of another seat and no raw state key.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AccessToken, User
from accounts.tokens import token_issue
from games.models import ConditionalMoves, Match, MatchEvent, Move, Seat
from notify.models import NotificationSettings, PushSubscription, Webhook
from notify.preferences import settings_of
from tests.leaks import RECEIPT_KEYS, alternatives, keys_in, shuffled_state, state_of, state_set
from tests.players import Player, make_player, play_to_end, start_match
from tests.schema_guard import session_guard

ANONYMOUS = "anonymous"
DEACTIVATED = "deactivated"
OTHER_USER = "other_user"
SEATED = "seated"
OTHER_SEAT = "other_seat"
SPECTATOR = "spectator"
OPERATOR = "operator"
ACTORS = (ANONYMOUS, DEACTIVATED, OTHER_USER, SEATED, OTHER_SEAT, SPECTATOR, OPERATOR)
#: Logged-in users without a seat in the matrix's matches: the API treats them all alike.
OUTSIDERS = (OTHER_USER, SPECTATOR, OPERATOR)
SEAT_OF = {SEATED: 0, OTHER_SEAT: 1}

NO_MATCH = "-"
STATES = ("open", "active", "finished")
PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "a-longer-horse-battery-staple"
#: Keys of the raw engine state and of stored moves: never in any answer during play.
SECRET_KEYS = frozenset({"state", "stock", "hands", "payload", "commitment", "salt", "seed_raw"})
#: The creator's sealed bid in the active match, one per alternative world.
WORLD_BIDS = (3, 4)


@dataclass(frozen=True)
class Outcome:
    status: int
    code: str | None = None

    def __str__(self) -> str:
        return f"{self.status} {self.code}" if self.code else str(self.status)


OK, CREATED, ACCEPTED, NO_CONTENT = Outcome(200), Outcome(201), Outcome(202), Outcome(204)
UNAUTHENTICATED = Outcome(401, "not_authenticated")
NOT_SEATED = Outcome(403, "not_seated")
PERMISSION_DENIED = Outcome(403, "permission_denied")
NOT_ACTIVE = Outcome(409, "match_not_active")
NOT_FINISHED = Outcome(409, "match_not_finished")
ALREADY_SEATED = Outcome(409, "already_seated")
WRONG_PHASE = Outcome(409, "wrong_phase")
INVALID = Outcome(400, "validation_error")
NOT_FOUND = Outcome(404, "not_found")
NOT_SUPPORTED = Outcome(400, "not_supported")
BOT_REFUSED = Outcome(409, "bot_refused")
VACATION_CONFLICT = Outcome(409, "vacation_conflict")
ALREADY_REGISTERED = Outcome(409, "already_registered")
NOT_REGISTERED = Outcome(409, "not_registered")
NOT_INVITED = Outcome(409, "not_invited")
NOT_ON_LADDER = Outcome(404, "not_on_ladder")
NOT_OPEN = Outcome(409, "tournament_not_open")
BERSERK_REFUSED = Outcome(409, "berserk_refused")
UNAVAILABLE = Outcome(409, "conditional_moves_unavailable")
NOT_OFFERABLE = Outcome(409, "seat_not_offerable")
NO_ID = "00000000-0000-4000-8000-000000000000"


def table(default: Outcome, **cells: Outcome) -> Callable[[str, str], Outcome]:
    """An expectation by actor: ``cells`` by actor name, else ``default``."""
    unknown = set(cells) - set(ACTORS)
    assert not unknown, unknown

    def expect(actor: str, state: str) -> Outcome:
        return cells.get(actor, default)

    return expect


def by_state(**states: Callable[[str, str], Outcome]) -> Callable[[str, str], Outcome]:
    """An expectation by match state, each an actor ``table``."""
    assert set(states) == set(STATES), states

    def expect(actor: str, state: str) -> Outcome:
        return states[state](actor, state)

    return expect


def authenticated(default: Outcome, **cells: Outcome) -> Callable[[str, str], Outcome]:
    """Anonymous and deactivated requesters get 401 ``not_authenticated``; the others as given."""
    return table(default, anonymous=UNAUTHENTICATED, deactivated=UNAUTHENTICATED, **cells)


# --- the world: one set of matches, built once per actor ---------------------------------------


@dataclass
class World:
    players: dict[str, Player]
    anonymous: APIClient
    matches: dict[str, str]
    usernames: dict[str, str]
    #: The creator's series (one match, against a bot).
    series: str = ""
    #: The other user's open seek.
    seek: str = ""
    #: The creator's tournament in registration, which seat 1 entered.
    tournament: str = ""
    #: The creator's sealed bid in the active match, in the world being played.
    bid: int = WORLD_BIDS[0]
    fresh: Iterator[int] = field(default_factory=lambda: iter(range(1, 10_000)))

    def client(self, actor: str) -> APIClient:
        return self.anonymous if actor == ANONYMOUS else self.players[actor].client

    def step(self, state: str) -> int:
        return max(1, Match.objects.values_list("step", flat=True).get(pk=self.matches[state]))


def build_world() -> World:
    """Users for every actor and the three matches of the creator (seat 0) and seat 1."""
    players = {
        SEATED: make_player(),
        OTHER_SEAT: make_player(),
        OTHER_USER: make_player(),
        SPECTATOR: make_player(),
    }
    operator = User.objects.create_superuser("operator1", "op@example.com", PASSWORD)
    players[OPERATOR] = Player(user=operator, token=token_issue(operator, name="tests")[1])
    gone = make_player()
    User.objects.filter(pk=gone.user.pk).update(is_active=False)
    players[DEACTIVATED] = gone
    for player in players.values():  # one calendar key each, the same in every world
        settings_of(player.user.pk)
    seated, other_seat = players[SEATED], players[OTHER_SEAT]

    # The other user plays a match of their own (it must never show up as theirs here).
    start_match("gops", [players[OTHER_USER], make_player()], options={"num_cards": 3})

    created = seated.create("gops", ["me", {"user": other_seat.name}, "open"])
    assert created.status_code == 201, created.content
    timed = {"per_step_seconds": 3600, "on_timeout": "auto_move"}
    active = start_match("gops", [seated, other_seat], options={"num_cards": 6}, time_control=timed)
    for who, card in ((seated, 1), (other_seat, 2)):
        assert who.move(active, 1, {"card": card}).status_code == 202
    finished = start_match("gops", [seated, other_seat], options={"num_cards": 3})
    assert play_to_end(finished, [seated, other_seat])["status"] == "finished"
    series = seated.post(
        "/series", {"game": "gops", "seats": ["me", {"bot": "random"}], "matches": 1}
    )
    assert series.status_code == 201, series.content
    for match_id in (created.json()["id"], active, finished):
        said = seated.post(f"/matches/{match_id}/chat", {"text": "hello"})
        assert said.status_code == 201, said.content
    sought = players[OTHER_USER].post("/seeks", {"game": "gops", "players": 2, **GOPS3})
    assert sought.status_code == 201, sought.content
    cup = seated.post("/tournaments", _tournament(None, SEATED, NO_MATCH))  # type: ignore[arg-type]
    assert cup.status_code == 201, cup.content
    entered = other_seat.post(f"/tournaments/{cup.json()['id']}/join")
    assert entered.status_code == 200, entered.content
    return World(
        series=series.json()["id"],
        seek=sought.json()["id"],
        tournament=cup.json()["id"],
        players=players,
        anonymous=APIClient(),
        matches={"open": created.json()["id"], "active": active, "finished": finished},
        usernames={actor: player.name for actor, player in players.items()},
    )


# --- the rows: one per endpoint -----------------------------------------------------------------

Body = Callable[[World, str, str], Any]


@dataclass(frozen=True)
class Row:
    method: str
    route: str
    expect: Callable[[str, str], Outcome]
    body: Body | None = None
    states: tuple[str, ...] = (NO_MATCH,)

    @property
    def name(self) -> str:
        return f"{self.method} {self.route}"

    def path(self, world: World, state: str) -> str:
        match_id = world.matches.get(state, "")
        path = self.route.replace("{match_id}", match_id).replace("{slug}", "gops")
        path = path.replace("{game}", "gops")
        path = path.replace("{series_id}", world.series).replace(
            "{username}", world.usernames[SEATED]
        )
        path = path.replace("{seek_id}", world.seek).replace("{seq}", "1")
        path = path.replace("{tournament_id}", world.tournament)
        # No proposal is open in the matrix's matches (tests/services/test_proposals.py
        # answers real ones): every proposal id is unknown.
        path = path.replace("{proposal_id}", "999999").replace("{offer_id}", "999999")
        path = path.replace("{sanction_id}", "999999")
        # Nobody here has a webhook or a push subscription: every such id is unknown.
        path = path.replace("{token_id}", "999999").replace("{challenge_id}", NO_ID)
        return path.replace("{webhook_id}", "999999").replace("{subscription_id}", "999999")


def _ticket(world: World, actor: str, state: str) -> Any:
    return {"streams": ["me"]}


def _register(world: World, actor: str, state: str) -> Any:
    return {"username": f"newcomer{next(world.fresh)}", "password": PASSWORD}


def _login(world: World, actor: str, state: str) -> Any:
    username = world.usernames.get(actor, "nobody-at-all")
    return {"username": username, "password": PASSWORD}


def _password_change(world: World, actor: str, state: str) -> Any:
    return {"current_password": PASSWORD, "password": NEW_PASSWORD}


def _password(world: World, actor: str, state: str) -> Any:
    return {"password": PASSWORD}


def _reset(world: World, actor: str, state: str) -> Any:
    return {"email": "someone@example.com"}


def _reset_confirm(world: World, actor: str, state: str) -> Any:
    return {"uid": "nobody", "token": "not-a-token", "password": NEW_PASSWORD}


def _create(world: World, actor: str, state: str) -> Any:
    return {"game": "gops", "seats": ["me", "open"]}


def _move(world: World, actor: str, state: str) -> Any:
    # The creator re-posts its sealed bid (in the world's ``bid``); everyone else bids 5.
    card = world.bid if actor == SEATED and state == "active" else 5
    return {"step": world.step(state), "move": {"card": card}}


def _reveal(world: World, actor: str, state: str) -> Any:
    return {"step": world.step(state), "move": {"card": 5}, "salt": "0" * 32}


def _abort(world: World, actor: str, state: str) -> Any:
    return {"kind": "abort"}


def _offer(world: World, actor: str, state: str) -> Any:
    return {"seat": 1}


def _series(world: World, actor: str, state: str) -> Any:
    return {"game": "gops", "seats": ["me", "open"], "matches": 2}


GOPS3 = {"options": {"num_cards": 3}}


def _seek(world: World, actor: str, state: str) -> Any:
    # Not equal to the other user's seek, so nobody is paired with it here.
    return {"game": "gops", "players": 2, "options": {"num_cards": 4}}


def _chat(world: World, actor: str, state: str) -> Any:
    return {"text": "good luck"}


def _hide(world: World, actor: str, state: str) -> Any:
    return {"reason": "a test"}


def _mute(world: World, actor: str, state: str) -> Any:
    return {"player": world.usernames[OTHER_SEAT]}


def _report(world: World, actor: str, state: str) -> Any:
    return {"kind": "match", "reason": "other", "match": world.matches[state]}


def _appeal(world: World, actor: str, state: str) -> Any:
    return {"text": "I did nothing wrong"}


def _token(world: World, actor: str, state: str) -> Any:
    return {"name": "a program", "scopes": ["read"]}


def _vacation(world: World, actor: str, state: str) -> Any:
    return {"until": (timezone.now() + timedelta(days=2)).isoformat()}


def _vacation_settings(world: World, actor: str, state: str) -> Any:
    return {"auto_vacation": False}


def _challenge(world: World, actor: str, state: str) -> Any:
    return {"game": "gops", **GOPS3}  # open to anyone


def _bulk(world: World, actor: str, state: str) -> Any:
    return {"game": "gops", "pairings": [[world.usernames[SEATED], world.usernames[OTHER_SEAT]]]}


def _current_password(world: World, actor: str, state: str) -> Any:
    return {"current_password": PASSWORD}


def _nothing(world: World, actor: str, state: str) -> Any:
    return {}


def _tournament(world: World, actor: str, state: str) -> Any:
    starts = (timezone.now() + timedelta(days=2)).isoformat()
    return {
        "name": "Matrix cup",
        "game": "gops",
        "options": {"num_cards": 3},
        "format": "round_robin",
        "round_limit_seconds": 86400,
        "starts_at": starts,
    }


def _late_player(world: World, actor: str, state: str) -> Any:
    return {"username": world.usernames[OTHER_USER]}


def _rules(world: World, actor: str, state: str) -> Any:
    return {"rules": [{"pot": None, "card": 6}]}


def _inward_hook(world: World, actor: str, state: str) -> Any:
    return {"url": "http://127.0.0.1:8000/hook"}  # refused by the SSRF guard


def _inward_push(world: World, actor: str, state: str) -> Any:
    keys = {"p256dh": "BAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}
    return {"endpoint": "http://169.254.169.254/push", "keys": keys}


#: Public endpoints read no credentials at all: a stale or deactivated token changes nothing.
PUBLIC = table(OK)
MATCH = ("open", "active", "finished")

ROWS: tuple[Row, ...] = (
    # Public.
    Row("GET", "/api/schema/", PUBLIC),
    Row("GET", "/api/docs/", PUBLIC),
    Row("GET", "/api/redoc/", PUBLIC),
    Row("GET", "/api/v1/games", PUBLIC),
    Row("GET", "/api/v1/games/{slug}", PUBLIC),
    Row("GET", "/api/v1/fairness/key", PUBLIC),
    Row("GET", "/api/v1/games/{slug}/leaderboard", PUBLIC),
    Row("GET", "/api/v1/players/{username}", PUBLIC),
    # Accounts: register and token take no credentials; a deactivated account gets no token.
    Row("POST", "/api/v1/accounts/register", table(CREATED), _register),
    Row(
        "POST",
        "/api/v1/accounts/token",
        table(OK, anonymous=INVALID, deactivated=INVALID),
        _login,
    ),
    Row("GET", "/api/v1/accounts/me", authenticated(OK)),
    Row("GET", "/api/v1/accounts/me/export", authenticated(OK)),
    Row("PATCH", "/api/v1/accounts/me", authenticated(OK), _nothing),
    # Notifications: each user's own settings, hooks and subscriptions; the links mailed and
    # the calendar feed take no credentials (their token or key is the credential).
    Row("GET", "/api/v1/accounts/me/notifications", authenticated(OK)),
    Row("PATCH", "/api/v1/accounts/me/notifications", authenticated(OK), _nothing),
    Row("GET", "/api/v1/accounts/me/webhooks", authenticated(OK)),
    Row("POST", "/api/v1/accounts/me/webhooks", authenticated(INVALID), _inward_hook),
    Row("GET", "/api/v1/accounts/me/webhooks/{webhook_id}", authenticated(NOT_FOUND)),
    Row("DELETE", "/api/v1/accounts/me/webhooks/{webhook_id}", authenticated(NOT_FOUND)),
    Row("GET", "/api/v1/accounts/me/webhooks/{webhook_id}/deliveries", authenticated(NOT_FOUND)),
    Row("POST", "/api/v1/accounts/me/push-subscriptions", authenticated(INVALID), _inward_push),
    Row(
        "DELETE",
        "/api/v1/accounts/me/push-subscriptions/{subscription_id}",
        authenticated(NOT_FOUND),
    ),
    Row("GET", "/api/v1/accounts/push-key", PUBLIC),
    Row("GET", "/api/v1/accounts/me/deadlines.ics", table(NOT_FOUND)),
    Row("POST", "/api/v1/accounts/me/calendar-key", authenticated(OK)),
    Row("GET", "/api/v1/accounts/email/verify", table(INVALID)),
    Row("GET", "/api/v1/accounts/notifications/unsubscribe", table(INVALID)),
    Row("POST", "/api/v1/accounts/notifications/unsubscribe", table(INVALID)),
    Row("DELETE", "/api/v1/accounts/me", authenticated(NO_CONTENT), _password),
    Row("POST", "/api/v1/accounts/token/rotate", authenticated(OK), _current_password),
    Row("POST", "/api/v1/accounts/logout", authenticated(NO_CONTENT)),
    Row("POST", "/api/v1/accounts/password", authenticated(OK), _password_change),
    # Access tokens: one's own (docs/programs.md); nobody here holds token 999999.
    Row("GET", "/api/v1/accounts/me/tokens", authenticated(OK)),
    Row("POST", "/api/v1/accounts/me/tokens", authenticated(CREATED), _token),
    Row("DELETE", "/api/v1/accounts/me/tokens/{token_id}", authenticated(NOT_FOUND)),
    # One's own vacation: every account starts with some; nobody here is away yet.
    Row("GET", "/api/v1/accounts/me/vacation", authenticated(OK)),
    Row("POST", "/api/v1/accounts/me/vacation", authenticated(OK), _vacation),
    Row("PATCH", "/api/v1/accounts/me/vacation", authenticated(OK), _vacation_settings),
    Row("DELETE", "/api/v1/accounts/me/vacation", authenticated(VACATION_CONFLICT)),
    # Only an account that never played (nor staff) becomes a bot account.
    Row(
        "POST",
        "/api/v1/accounts/me/bot",
        authenticated(BOT_REFUSED, spectator=OK),
    ),
    # Challenges: anyone logged in challenges and reads theirs; nobody here holds NO_ID.
    Row("GET", "/api/v1/challenges", authenticated(OK)),
    Row("POST", "/api/v1/challenges", authenticated(CREATED), _challenge),
    Row("GET", "/api/v1/challenges/{challenge_id}", authenticated(NOT_FOUND)),
    Row("POST", "/api/v1/challenges/{challenge_id}/accept", authenticated(NOT_FOUND)),
    Row("POST", "/api/v1/challenges/{challenge_id}/decline", authenticated(NOT_FOUND), _nothing),
    Row("POST", "/api/v1/challenges/{challenge_id}/cancel", authenticated(NOT_FOUND)),
    Row("POST", "/api/v1/bulk-pairings", authenticated(CREATED), _bulk),
    # Live (docs/live.md): a ticket for any logged-in user; the streams are the ASGI server's,
    # so this (WSGI) test client gets not_supported from them, alike for everyone
    # (tests/live/ runs the matrix of the streams themselves on real ASGI servers).
    Row("POST", "/api/v1/accounts/stream-ticket", authenticated(OK), _ticket),
    Row("GET", "/api/v1/accounts/me/stream", table(NOT_SUPPORTED)),
    Row("GET", "/api/v1/matches/{match_id}/stream", table(NOT_SUPPORTED), states=MATCH),
    Row("GET", "/api/v1/tournaments/{tournament_id}/stream", table(NOT_SUPPORTED)),
    # A reset request is answered alike for every address; a forged link is refused to all.
    Row("POST", "/api/v1/accounts/password-reset", table(ACCEPTED), _reset),
    Row("POST", "/api/v1/accounts/password-reset/confirm", table(INVALID), _reset_confirm),
    # Tournaments: any logged-in user may list, create, read and join; the organiser (seat 0
    # here) and staff run it; seat 1 is registered.
    Row("GET", "/api/v1/tournaments", authenticated(OK)),
    Row("POST", "/api/v1/tournaments", authenticated(CREATED), _tournament),
    Row("GET", "/api/v1/tournaments/{tournament_id}", authenticated(OK)),
    Row("GET", "/api/v1/tournaments/{tournament_id}/standings", authenticated(OK)),
    Row("GET", "/api/v1/tournaments/{tournament_id}/crosstable", authenticated(OK)),
    Row("GET", "/api/v1/tournaments/{tournament_id}/rounds", authenticated(OK)),
    Row("GET", "/api/v1/tournaments/{tournament_id}/events", authenticated(OK)),
    Row("GET", "/api/v1/tournaments/{tournament_id}/export", authenticated(OK)),
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/join",
        authenticated(OK, other_seat=ALREADY_REGISTERED),
    ),
    Row("POST", "/api/v1/tournaments/{tournament_id}/decline", authenticated(NOT_INVITED)),
    # The world's tournament is a Swiss: nobody may berserk in it.
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/berserk",
        authenticated(BERSERK_REFUSED),
        lambda world, actor, state: {"match": str(uuid.UUID(int=0))},
    ),
    # The ladder: public to read; nobody here has an entry, and anyone may enter themselves.
    Row("GET", "/api/v1/ladders/{game}", PUBLIC),
    Row("GET", "/api/v1/ladders/{game}/entry", authenticated(NOT_ON_LADDER)),
    Row("POST", "/api/v1/ladders/{game}/entry", authenticated(CREATED), _nothing),
    Row("DELETE", "/api/v1/ladders/{game}/entry", authenticated(NOT_ON_LADDER)),
    Row("POST", "/api/v1/ladders/{game}/entry/resume", authenticated(NOT_ON_LADDER)),
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/withdraw",
        authenticated(NOT_REGISTERED, other_seat=OK),
    ),
    *(
        Row(
            "POST",
            f"/api/v1/tournaments/{{tournament_id}}/{action}",
            authenticated(PERMISSION_DENIED, seated=NOT_OPEN, operator=NOT_OPEN),
        )
        for action in ("start", "pause", "resume")
    ),
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/end",
        authenticated(PERMISSION_DENIED, seated=OK, operator=OK),
    ),
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/players",
        authenticated(PERMISSION_DENIED, seated=CREATED, operator=CREATED),
        _late_player,
    ),
    Row(
        "POST",
        "/api/v1/tournaments/{tournament_id}/players/{username}/disqualify",
        authenticated(PERMISSION_DENIED, seated=NOT_REGISTERED, operator=NOT_REGISTERED),
        _nothing,
    ),
    # Matches: any logged-in user may list, create and read; only seats act.
    Row("GET", "/api/v1/matches", authenticated(OK)),
    Row("POST", "/api/v1/matches", authenticated(CREATED), _create),
    Row("GET", "/api/v1/matches/{match_id}", authenticated(OK), states=MATCH),
    Row("GET", "/api/v1/matches/{match_id}/events", authenticated(OK), states=MATCH),
    Row(
        "GET",
        "/api/v1/matches/{match_id}/audit",
        by_state(
            open=authenticated(NOT_FINISHED),
            active=authenticated(NOT_FINISHED),
            finished=authenticated(OK),
        ),
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/join",
        by_state(
            # The creator is seated and ready; the invitee accepts; anyone takes the open seat.
            open=authenticated(OK, seated=ALREADY_SEATED),
            active=authenticated(NOT_ACTIVE),
            finished=authenticated(NOT_ACTIVE),
        ),
        _nothing,
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/decline",
        by_state(
            # Only an invitee who has not accepted may decline.
            open=authenticated(NOT_SEATED, seated=PERMISSION_DENIED, other_seat=OK),
            active=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
            finished=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
        ),
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/resign",
        by_state(
            open=authenticated(NOT_SEATED, seated=OK, other_seat=OK),
            active=authenticated(NOT_SEATED, seated=OK, other_seat=OK),
            finished=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
        ),
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/moves",
        by_state(
            open=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
            # The creator's identical re-post answers 200 with its receipt; seat 1 bids.
            active=authenticated(NOT_SEATED, seated=OK, other_seat=ACCEPTED),
            finished=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
        ),
        _move,
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/rematch",
        by_state(
            # Only a seat of a finished match may ask (a rematch, once made, is anyone's).
            open=authenticated(NOT_SEATED, seated=NOT_FINISHED, other_seat=NOT_FINISHED),
            active=authenticated(NOT_SEATED, seated=NOT_FINISHED, other_seat=NOT_FINISHED),
            finished=authenticated(NOT_SEATED, seated=CREATED, other_seat=CREATED),
        ),
        states=MATCH,
    ),
    # Proposals are public; seats of an active match propose.
    Row("GET", "/api/v1/matches/{match_id}/proposals", authenticated(OK), states=MATCH),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/proposals",
        by_state(
            open=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
            active=authenticated(NOT_SEATED, seated=CREATED, other_seat=CREATED),
            finished=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
        ),
        _abort,
        states=MATCH,
    ),
    *(
        Row(
            "POST",
            f"/api/v1/matches/{{match_id}}/proposals/{{proposal_id}}/{answer}",
            authenticated(NOT_FOUND),
            states=MATCH,
        )
        for answer in ("accept", "decline", "withdraw")
    ),
    # Conditional moves: a seat's own, read by its holder only (there is no way to name
    # another seat's); offered in correspondence matches only, which this world has none of
    # (tests/api/test_conditional_moves.py has the rest).
    *(
        Row(
            method,
            "/api/v1/matches/{match_id}/conditional-moves",
            authenticated(NOT_SEATED, seated=UNAVAILABLE, other_seat=UNAVAILABLE),
            body,
            states=MATCH,
        )
        for method, body in (("GET", None), ("PUT", _rules), ("DELETE", _nothing))
    ),
    # Seat offers are public; a seat of an active correspondence match may be offered by its
    # other players or the creator (tests/services/test_substitutes.py offers real ones): the
    # matrix's seats all play on, so none may be offered.
    Row("GET", "/api/v1/matches/{match_id}/substitutes", authenticated(OK), states=MATCH),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/substitutes",
        by_state(
            open=authenticated(NOT_ACTIVE),
            active=authenticated(PERMISSION_DENIED, seated=NOT_OFFERABLE, other_seat=NOT_OFFERABLE),
            finished=authenticated(NOT_ACTIVE),
        ),
        _offer,
        states=MATCH,
    ),
    *(
        Row(
            "POST",
            f"/api/v1/matches/{{match_id}}/substitutes/{{offer_id}}/{answer}",
            authenticated(NOT_FOUND),
            states=MATCH,
        )
        for answer in ("accept", "decline", "withdraw")
    ),
    # The lobby's seats to take over: anyone may read them.
    Row("GET", "/api/v1/substitutes", table(OK, deactivated=UNAUTHENTICATED)),
    # Series: any logged-in user may create one and read any.
    Row("POST", "/api/v1/series", authenticated(CREATED), _series),
    Row("GET", "/api/v1/series/{series_id}", authenticated(OK)),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/reveals",
        by_state(
            # A sealed match has no reveal phase.
            open=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
            active=authenticated(NOT_SEATED, seated=WRONG_PHASE, other_seat=WRONG_PHASE),
            finished=authenticated(NOT_SEATED, seated=NOT_ACTIVE, other_seat=NOT_ACTIVE),
        ),
        _reveal,
        states=MATCH,
    ),
    # Seeks: anyone logged in seeks; a seek is read and cancelled by its player only.
    Row("GET", "/api/v1/seeks", authenticated(OK)),
    Row("POST", "/api/v1/seeks", authenticated(CREATED), _seek),
    Row("GET", "/api/v1/seeks/{seek_id}", authenticated(NOT_FOUND, other_user=OK)),
    Row("DELETE", "/api/v1/seeks/{seek_id}", authenticated(NOT_FOUND, other_user=NO_CONTENT)),
    # Chat: everyone logged in reads, seats write, operators hide; mutes are one's own.
    Row("GET", "/api/v1/matches/{match_id}/chat", authenticated(OK), states=MATCH),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/chat",
        authenticated(NOT_SEATED, seated=CREATED, other_seat=CREATED),
        _chat,
        states=MATCH,
    ),
    Row(
        "POST",
        "/api/v1/matches/{match_id}/chat/{seq}/hide",
        authenticated(PERMISSION_DENIED, operator=OK),
        _hide,
        states=MATCH,
    ),
    Row("GET", "/api/v1/chat/mutes", authenticated(OK)),
    Row("POST", "/api/v1/chat/mutes", authenticated(OK, other_seat=INVALID), _mute),
    # Reports: anyone logged in reports any match they may read; sanctions are one's own
    # (nobody here has one: every sanction id is unknown).
    Row("POST", "/api/v1/reports", authenticated(CREATED), _report, states=MATCH),
    Row("GET", "/api/v1/sanctions", authenticated(OK)),
    Row("POST", "/api/v1/sanctions/{sanction_id}/appeal", authenticated(NOT_FOUND), _appeal),
)
ROW_NAMES = {row.name for row in ROWS}


# --- which endpoints exist ----------------------------------------------------------------------

_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")
_SKIPPED_METHODS = {"options", "head"}


def _walk(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern.callback


def api_endpoints() -> set[str]:
    """``METHOD /route`` of every view under ``/api/``, from the URL patterns."""
    found: set[str] = set()
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith("api/"):
            continue
        view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
        assert view_class is not None, route
        template = "/" + _CONVERTER.sub(r"{\1}", route)
        for method in view_class.http_method_names:
            if method not in _SKIPPED_METHODS and hasattr(view_class, method):
                found.add(f"{method.upper()} {template}")
    return found


def test_every_api_endpoint_has_a_row() -> None:
    endpoints = api_endpoints()
    assert endpoints - ROW_NAMES == set(), "endpoints without a row in the matrix"
    assert ROW_NAMES - endpoints == set(), "rows for endpoints that no longer exist"
    schema = session_guard().spec["paths"]
    documented = {
        f"{method.upper()} {template}"
        for template, operations in schema.items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert documented <= ROW_NAMES, "documented operations without a row"


# --- running the cells -------------------------------------------------------------------------


class _Rollback(Exception):
    pass


_TABLES = (
    Match,
    Seat,
    Move,
    MatchEvent,
    ConditionalMoves,
    User,
    AccessToken,
    NotificationSettings,
    Webhook,
    PushSubscription,
)


def _row(model: type[Any]) -> str:
    """A row as text; a token's last use is bookkeeping any request may write (once a minute)."""
    if model is AccessToken:
        return "concat_ws(',', t.id, t.name, t.digest, t.scopes, t.expires_at)"
    return "t::text"


def fingerprint() -> str:
    """A digest of every row a request could change, in one query (compared around a cell)."""
    parts = ", ".join(
        f"(SELECT md5(coalesce(string_agg({_row(model)}, ',' ORDER BY {_row(model)}), '')) "
        f"FROM {model._meta.db_table} t)"
        for model in _TABLES
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT concat_ws('|', {parts})")
        row = cursor.fetchone()
    assert row is not None
    return str(row[0])


@dataclass
class Answer:
    status: int
    content_type: str
    body: Any
    etag: str | None

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


def call(world: World, row: Row, actor: str, state: str, *, watch: bool) -> tuple[Answer, bool]:
    """Send the cell's request in a savepoint that is rolled back; the answer, and (``watch``)
    whether the database changed."""
    client = world.client(actor)
    path = row.path(world, state)
    box: list[tuple[Answer, bool]] = []
    try:
        with transaction.atomic():
            before = fingerprint() if watch else ""
            if row.method == "GET":
                response = client.get(path)
            else:
                body = row.body(world, actor, state) if row.body else None
                send = {"DELETE": client.delete, "PATCH": client.patch, "PUT": client.put}.get(
                    row.method, client.post
                )
                response = send(path, body, format="json")
            content_type = response.get("Content-Type", "").split(";")[0]
            try:
                parsed: Any = json.loads(response.content)
            except ValueError:
                parsed = response.content.decode()
            answer = Answer(response.status_code, content_type, parsed, response.get("ETag"))
            box.append((answer, watch and fingerprint() != before))
            raise _Rollback
    except _Rollback:
        pass
    return box[0]


def _check_cell(row: Row, actor: str, state: str, answer: Answer, changed: bool) -> None:
    expected = row.expect(actor, state)
    got = Outcome(answer.status, answer.code if answer.status >= 400 else None)
    assert got == expected, f"expected {expected}, got {got}: {answer.body!r:.300}"
    if answer.status >= 400:
        assert answer.content_type == "application/problem+json"
        assert isinstance(answer.body, dict) and answer.body["status"] == answer.status
        assert not changed, "a refused request changed the database"
    elif row.method == "GET":
        assert not changed, "a read changed the database"
    if 200 <= answer.status < 300 and isinstance(answer.body, (dict, list)):
        _check_body(row, actor, state, answer.body)


def _check_body(row: Row, actor: str, state: str, body: Any) -> None:
    """No raw state, no stored move, and no receipt but the requester's own, in a 2xx body."""
    keys = keys_in(body)
    if row.route.endswith("/audit"):
        return  # the transcript of a match that is over: everything is public by design
    assert not keys & SECRET_KEYS, sorted(keys & SECRET_KEYS)
    own_receipt = row.route.endswith(("/moves", "/reveals", "/me/export")) and actor in SEAT_OF
    if not own_receipt:
        assert not keys & RECEIPT_KEYS, sorted(keys & RECEIPT_KEYS)
    if (
        isinstance(body, dict)
        and "fairness" in body
        and body.get("status")
        not in (
            "finished",
            "aborted",
        )
    ):
        assert body["fairness"]["seed"] is None


def _comparable(name: str, answer: Answer) -> bool:
    """Answers that must not depend on what the actor may not know: every JSON read and every
    refusal. (A request that changes the match, e.g. a resignation that ends it, may rightly
    make public what was hidden, and a receipt is salted afresh each time; the HTML of the
    interactive docs holds no match at all; the vacation bank accrues by the second and holds
    nothing of any match.)"""
    if not answer.content_type.endswith("json") or "/me/vacation" in name:
        return False
    return name.startswith("GET ") or answer.status >= 400


def run_cells(world: World, actor: str, subtests: Any | None) -> dict[str, Answer]:
    """Every cell for ``actor``; checked (in subtests) when ``subtests`` is given."""
    seen: dict[str, Answer] = {}
    for row in ROWS:
        for state in row.states:
            name = f"{row.name} | {actor} | {state}"
            if subtests is None:
                expected = row.expect(actor, state)
                if row.method != "GET" and expected.status < 400:
                    continue  # not compared (``_comparable``)
                answer, _ = call(world, row, actor, state, watch=False)
            else:
                with subtests.test(msg=name):
                    answer, changed = call(world, row, actor, state, watch=True)
                    _check_cell(row, actor, state, answer, changed)
                    seen[name] = answer
                continue
            seen[name] = answer
    return seen


#: The second world redraws what is hidden from these seats; the actors of each group read it.
GROUPS: dict[int | None, tuple[str, ...]] = {
    None: (ANONYMOUS, DEACTIVATED, OTHER_USER, SPECTATOR, OPERATOR),
    1: (OTHER_SEAT,),
}


def in_world(
    world: World,
    actors: tuple[str, ...],
    bid: int,
    hidden_from: tuple[int | None, int] | None,
    subtests: Any | None,
) -> Callable[[], dict[str, Answer]]:
    """The creator seals ``bid`` in the active match, and (``hidden_from``: a seat and a salt)
    what that seat may not see is redrawn; then every cell of every actor is run."""

    def run() -> dict[str, Answer]:
        world.bid = bid
        active = world.matches["active"]
        answer = world.players[SEATED].move(active, 2, {"card": bid})
        assert answer.status_code == 202, answer.content
        if hidden_from is not None:
            state_set(active, shuffled_state(active, *hidden_from))
        seen: dict[str, Answer] = {}
        for actor in actors:
            seen.update(run_cells(world, actor, subtests))
        return seen

    return run


def test_authorization_matrix(db: None, subtests: Any, settings: Any) -> None:
    """Every cell is checked in the first world; each group of actors then reads a second
    world that differs only in what they may not know, and must read the same answers."""
    settings.FACEDOWN_TASK_RUNNER = "off"
    world = build_world()
    dealt = state_of(world.matches["active"])
    results = alternatives(
        in_world(world, ACTORS, WORLD_BIDS[0], None, subtests),
        *(
            in_world(world, actors, WORLD_BIDS[1], (seat, 7), None)
            for seat, actors in GROUPS.items()
        ),
    )
    assert state_of(world.matches["active"]) == dealt
    checked, others = results[0], results[1:]
    compared = 0
    for other in others:
        for name, answer in other.items():
            if name not in checked or not _comparable(name, answer):
                continue
            compared += 1
            with subtests.test(msg=f"leak: {name}"):
                assert checked[name] == answer, "the answer depends on what the actor may not know"
    assert compared > 100
