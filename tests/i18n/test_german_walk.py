"""No English in a German problem: illegal moves of every game and a table of bad requests of
each route family, each sent in English and in German. The German ``detail`` and field messages
must differ from the English ones and be texts of the German catalogue (its ``msgstr``, with
the parameters filled in), never an untranslated ``msgid``. The engines' reasons are walked in
full in test_engine_messages.py; here they travel the whole way through the API."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation
from rest_framework import fields, relations, serializers
from rest_framework.test import APIClient

from accounts.tokens import token_issue
from tests.i18n.catalogues import messages
from tests.players import API, Player, make_player, start_match

PROBLEM = "application/problem+json"
Send = Callable[[dict[str, str]], Any]


def _pattern(text: str) -> re.Pattern[str]:
    parts = re.split(r"%\(\w+\)s|\{\w+\}", text)
    return re.compile(".+?".join(map(re.escape, parts)), re.DOTALL)


def _drf_messages(language: str) -> set[str]:
    """DRF's field messages (its own catalogue), which the problem writer uses too."""
    with translation.override(language):
        return {
            str(message)
            for module in (fields, relations, serializers)
            for cls in vars(module).values()
            if isinstance(cls, type) and issubclass(cls, fields.Field)
            for message in cls.default_error_messages.values()
        }


CATALOGUE = messages("de", "django")
GERMAN = [_pattern(m.strings[0]) for m in CATALOGUE if m.strings and m.strings[0]]
GERMAN += [_pattern(text) for text in _drf_messages("de")]
ENGLISH = {m.msgid for m in CATALOGUE} | _drf_messages("en")


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def _texts(body: dict[str, Any]) -> list[str]:
    fields = body.get("errors") or {}
    return [body["detail"], *(text for name in sorted(fields) for text in fields[name])]


def in_both(send: Send) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same refused request in English and in German: the same problem, every text of it
    translated from the catalogue."""
    english = send({"HTTP_ACCEPT_LANGUAGE": "en"})
    german = send({"HTTP_ACCEPT_LANGUAGE": "de"})
    for answer in (english, german):
        assert answer["Content-Type"].startswith(PROBLEM), answer.content
    en, de = english.json(), german.json()
    assert (de["code"], german.status_code) == (en["code"], english.status_code)
    assert german["Content-Language"] == "de"
    assert len(_texts(de)) == len(_texts(en))
    for said_en, said_de in zip(_texts(en), _texts(de), strict=True):
        assert said_de != said_en, f"English in a German problem: {said_de!r}"
        assert said_de not in ENGLISH, said_de
        assert any(p.fullmatch(said_de) for p in GERMAN), f"not from the catalogue: {said_de!r}"
    return en, de


def _move(player: Player, match_id: str, move: Any, step: int | None = None) -> Send:
    at = player.match(match_id)["step"] if step is None else step
    return lambda headers: player.move(match_id, at, move, **headers)


def _actor(match_id: str, players: list[Player]) -> Player:
    (index,) = players[0].match(match_id)["phase"]["to_act"]
    return players[index]


def _illegal(send: Send) -> str:
    en, _ = in_both(send)
    assert en["code"] == "illegal_move", en
    return str(en["detail"])


@pytest.mark.django_db
def test_illegal_moves_of_every_game_in_german() -> None:
    a, b, c, d = (make_player() for _ in range(4))
    gops = start_match("gops", [a, b], options={"num_cards": 3})
    said = [_illegal(_move(a, gops, move)) for move in ({"card": 99}, {"cards": 1}, {"card": "x"})]
    assert said[0] == "card 99 is not in your hand (cards run from 1 to 3)"
    assert a.move(gops, 1, {"card": 1}).status_code == 202
    assert b.move(gops, 1, {"card": 2}).status_code in (200, 202)
    _illegal(_move(a, gops, {"card": 1}))  # already played
    in_both(_move(a, gops, {"card": 2}, step=9))  # wrong_phase, with its step numbers

    hols = start_match("hols-der-geier", [a, b])
    _illegal(_move(a, hols, {"card": 16}))

    memory = start_match("memory", [a, b], options={"pairs": 6})
    flipper = _actor(memory, [a, b])
    for move in ({"flip": 99}, {"flip": "a"}, {"flop": 1}):
        _illegal(_move(flipper, memory, move))
    assert flipper.move(memory, flipper.match(memory)["step"], {"flip": 0}).status_code == 202
    _illegal(_move(flipper, memory, {"flip": 0}))  # already face up this turn

    forest = start_match("old-men-of-the-forest", [a, b, c])
    leader = _actor(forest, [a, b, c])
    hand = leader.match(forest)["view"]["hand"]
    not_mine = next(f"{k}{v}" for k in "RBYGX" for v in range(1, 11) if f"{k}{v}" not in hand)
    for move in ({"play": not_mine}, {"take": hand[0]}, {"play": "Z9"}):
        _illegal(_move(leader, forest, move))

    xato = start_match("xato", [a, b, c, d])
    drafter = _actor(xato, [a, b, c, d])
    for move in ({"take": "ZZ"}, {"take": 7}, {"call": "QS"}, {"take": "RJ"}):
        _illegal(_move(drafter, xato, move))


def test_a_german_profile_reads_its_illegal_moves_in_german(db: None) -> None:
    a, b = make_player(), make_player()
    a.user.language = "de"
    a.user.save(update_fields=["language"])
    gops = start_match("gops", [a, b], options={"num_cards": 3})
    refused = a.move(gops, 1, {"card": 99}, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.json()["detail"] == (
        "Die Karte 99 ist nicht auf deiner Hand (die Karten gehen von 1 bis 3)."
    )


def _post(player: Player, path: str, body: Any) -> Send:
    return lambda headers: player.post(path, body, **headers)


def _get(player: Player, path: str) -> Send:
    return lambda headers: player.get(path, **headers)


@pytest.mark.django_db
def test_bad_requests_of_every_route_family_in_german() -> None:
    a, b = make_player(), make_player()
    gops = {"game": "gops", "options": {"num_cards": 3}}
    daily = {"per_step_seconds": 86400}
    active = start_match("gops", [a, b], options={"num_cards": 3}, time_control=daily)
    created = a.create("gops", ["me", "open"], options={"num_cards": 3})
    waiting = created.json()["id"]
    finished = start_match("gops", [a, b], options={"num_cards": 3})
    assert b.post(f"/matches/{finished}/resign").status_code == 200
    challenge = a.post("/challenges", {**gops, "to": b.name}).json()["id"]
    assert b.post(f"/challenges/{challenge}/decline").status_code == 200
    seek = a.post("/seeks", {**gops, "players": 2}).json()["id"]
    assert a.client.delete(f"{API}/seeks/{seek}").status_code == 204
    reader = Player(user=a.user, token=token_issue(a.user, name="read", scopes=["read"])[1])
    byoyomi = {"kind": "byoyomi", "main_seconds": 1, "periods": 0, "period_seconds": 1}
    #: Each bad request with a piece of the English text it must be refused with.
    table: list[tuple[str, Send]] = [
        # matches
        ("takes 2 to 3 seats", _post(a, "/matches", {**gops, "seats": ["me"]})),
        (
            "greater than the maximum",
            _post(
                a,
                "/matches",
                {
                    **gops,
                    "seats": ["me", "open"],
                    "options": {"num_cards": 999, "bogus": 1, "history": 5},
                },
            ),
        ),
        (
            "periods from 1 to",
            _post(
                a,
                "/matches",
                {
                    **gops,
                    "seats": ["me", "open"],
                    "time_control": {**byoyomi, "on_timeout": "x", "auto_move_bot": "x"},
                },
            ),
        ),
        (
            "One of per_step",
            _post(
                a,
                "/matches",
                {**gops, "seats": ["me", "open"], "time_control": {"kind": "sideways"}},
            ),
        ),
        ("One of expert", _post(a, "/matches", {**gops, "seats": ["me", {"bot": "nobody"}]})),
        (
            "less than or equal to 20",
            _post(a, "/series", {**gops, "seats": ["me", {"bot": "random"}], "matches": 999}),
        ),
        ("between 0 and 1", _post(b, f"/matches/{waiting}/join", {"seat": 9})),
        ("Seat 0 is not open", _post(b, f"/matches/{waiting}/join", {"seat": 0})),
        ("in ASCII digits", _get(a, "/matches?page_size=0")),
        ("One of open", _get(a, "/matches?status=bogus")),
        ("The match is finished", _move(a, finished, {"card": 1}, step=1)),
        ("transcript comes at the end", _get(a, f"/matches/{active}/audit")),
        ("lacks the 'play' scope", _move(reader, active, {"card": 1}, step=1)),
        ("no more than 2000", _post(a, f"/matches/{active}/chat", {"text": "x" * 5000})),
        # social
        ("The challenge is declined", _post(b, f"/challenges/{challenge}/accept", {})),
        ("GOPS takes 2 to 3.", _post(a, "/seeks", {**gops, "players": 9})),
        ("A JSON integer", _post(a, "/seeks", {**gops, "players": 2, "rating_range": {"min": -1}})),
        # accounts, notifications, moderation, tournaments
        ("not a valid choice", _post(a, "/accounts/me/tokens", {"name": "x", "scopes": ["bogus"]})),
        (
            "not a valid choice",
            _post(
                a,
                "/accounts/me/webhooks",
                {"url": "https://example.com/hook", "event_types": ["bogus"]},
            ),
        ),
        (
            "no more than 1000",
            _post(
                a,
                "/reports",
                {"kind": "player", "reason": "abuse", "player": b.name, "comment": "x" * 5000},
            ),
        ),
        (
            "greater than or equal to 60",
            _post(
                a,
                "/tournaments",
                {
                    "name": "x" * 200,
                    "game": "gops",
                    "format": "bogus",
                    "round_limit_seconds": 1,
                    "starts_at": "2030-01-01T00:00:00Z",
                    "max_players": 2,
                },
            ),
        ),
    ]
    for name, send in table:
        en, _ = in_both(send)
        print("ROW", name, en["code"], _texts(en))
        assert en["code"] != "server_error", name
    malformed = APIClient()
    malformed.credentials(HTTP_AUTHORIZATION=f"Token {a.token}")

    def broken(headers: dict[str, str]) -> Any:
        return malformed.post(f"{API}/matches", b"{", content_type="application/json", **headers)

    en, de = in_both(broken)
    assert en["code"] == "parse_error" and de["detail"].startswith("JSON-Fehler")


def test_a_throttled_request_in_german(db: None, rates: Any) -> None:
    rates(reads="1/min")
    a = make_player()
    assert a.get("/games").status_code == 200
    en, _ = in_both(_get(a, "/games"))
    assert en["code"] == "throttled"
    assert en["detail"].startswith("Request was throttled. Expected available in")
