"""GET /matches from rows (``reads.match_page`` and ``presenters.listed_resources``) against the
queryset path it replaced (``reads.match_list``, DRF's pagination of the queryset,
``presenters.match_resource`` of each match): the same bytes, ETag and next links for every filter,
viewer (seated, invited, a stranger who may join, one who sees nothing), page size and cursor
(forward, with an offset inside equal timestamps, and a hand-made reverse one), and no more
queries. The list reads no hidden column."""

from __future__ import annotations

import base64
import itertools
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from games.api.matches import MatchPagination, _list_etag
from games.api.params import param_choice, param_flag
from games.catalog import engines
from games.models import Match
from games.services import presenters, reads
from tests.players import API, Player, make_player, play_to_end, start_match

QUERIES = [
    "",
    "mine=true",
    "awaiting_me=true",
    "invited=true",
    "status=open",
    "status=active",
    "status=finished",
    "status=aborted",
    "game=memory",
    "mine=true&status=active&game=gops",
    "awaiting_me=true&invited=true",
    "invited=true&mine=true",
    "mine=false&game=gops",
]


def _reference(player: Player, url: str) -> tuple[bytes, str]:
    """The answer of the queryset path for ``url``: body bytes and ETag."""
    parts = urlsplit(url)
    request = Request(APIRequestFactory().get(f"{parts.path}?{parts.query}"))
    request.user = player.user
    params = request.query_params
    matches = reads.match_list(
        user=player.user,
        status=param_choice(params, "status", Match.Status.values),
        mine=param_flag(params, "mine"),
        awaiting_me=param_flag(params, "awaiting_me"),
        invited=param_flag(params, "invited"),
        game=param_choice(params, "game", [engine.slug for engine in engines()]),
    )
    paginator = MatchPagination()
    page = paginator.paginate_queryset(matches, request) or []
    results = [
        presenters.match_resource(reads.snapshot_of(match, player.user), detail=False)
        for match in page
    ]
    data = paginator.get_paginated_response(results).data
    return JSONRenderer().render(data), _list_etag(request, data)


def _same(player: Player, url: str) -> Any:
    """Both paths answer ``url`` alike; the answer (parsed)."""
    response = player.client.get(url)
    assert response.status_code == 200, response.content
    body, etag = _reference(player, url)
    assert response.content == body, url
    assert response["ETag"] == etag, url
    return response.json()


def _cursor(offset: int, reverse: bool, position: str | None) -> str:
    """A cursor as DRF encodes it (``CursorPagination.encode_cursor``)."""
    tokens: dict[str, Any] = {}
    if offset:
        tokens["o"] = str(offset)
    if reverse:
        tokens["r"] = "1"
    if position is not None:
        tokens["p"] = position
    return base64.b64encode(urlencode(tokens).encode("ascii")).decode("ascii")


@pytest.fixture
def world(alice: Player, bob: Player, carol: Player) -> dict[str, Any]:
    """Matches in every state the list shows, seen by four users."""
    dave = make_player("dave")  # seated nowhere: sees only what anyone may join
    hidden = start_match("gops", [alice, bob], disclose_submitted=False)
    assert alice.move(hidden, 1, alice.match(hidden)["legal_moves"][0]).status_code == 202
    disclosed = start_match("gops", [alice, carol])
    assert carol.move(disclosed, 1, carol.match(disclosed)["legal_moves"][0]).status_code == 202
    finished = start_match("gops", [alice, bob], options={"num_cards": 3})
    assert play_to_end(finished, [alice, bob])["status"] == "finished"
    rematch = bob.post(f"/matches/{finished}/rematch")
    assert rematch.status_code in (200, 201), rematch.content
    declined = alice.create("gops", ["me", {"user": bob.name}]).json()["id"]
    assert bob.post(f"/matches/{declined}/decline").status_code == 200
    joinable = bob.create("gops", ["me", "open", {"bot": "random"}]).json()["id"]
    invitation = alice.create("hols-der-geier", ["me", {"user": carol.name}]).json()["id"]
    turns = start_match("memory", [alice, bob])
    timed = {"per_step_seconds": 3600, "on_timeout": "auto_move"}
    start_match("hols-der-geier", [alice, bob, carol], time_control=timed)
    body = {"game": "gops", "seats": ["me", {"bot": "random"}], "matches": 2}
    assert alice.post("/series", body).status_code == 201
    # Three matches created at the same instant: pages that end among them carry an offset.
    same = Match.objects.get(pk=turns).created_at
    Match.objects.filter(pk__in=[joinable, invitation, declined]).update(created_at=same)
    return {"players": [alice, bob, carol, dave], "finished": finished}


def test_the_list_from_rows_answers_as_the_queryset_did(world: dict[str, Any]) -> None:
    pages = 0
    for player in world["players"]:
        for query in QUERIES:
            for size in (None, 1, 3):
                url = f"{API}/matches?" + "&".join(
                    q for q in (query, f"page_size={size}" if size else "") if q
                )
                # (Equal timestamps are in no set order, in either path: a walk through them
                # may repeat or skip one. Both paths must still answer each page alike.)
                while url:
                    url, pages = _same(player, url)["next"], pages + 1
    assert pages > 200


def test_reverse_cursors_and_offsets_answer_as_the_queryset_did(world: dict[str, Any]) -> None:
    alice = world["players"][0]
    listed = alice.get("/matches?page_size=200").json()["results"]
    assert len(listed) > 6
    positions = [str(Match.objects.get(pk=m["id"]).created_at) for m in listed]
    for position in (positions[2], positions[-1], positions[0]):
        for offset, reverse in ((0, True), (1, True), (2, False), (0, False)):
            cursor = _cursor(offset, reverse, position)
            for query in ("", "mine=true", "status=active"):
                _same(alice, f"{API}/matches?{query}&page_size=2&cursor={cursor}")
    _same(alice, f"{API}/matches?page_size=2&cursor={_cursor(3, False, None)}")
    _same(alice, f"{API}/matches?page_size=2&cursor={_cursor(3, True, None)}")


def _list_queries(player: Player, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert player.client.get(url).status_code == 200
    return [q["sql"] for q in captured.captured_queries if '"games_' in q["sql"]]


def _reference_queries(player: Player, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        _reference(player, url)
    return [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("query", ["", "mine=true&page_size=1", "status=aborted", "game=xato"])
def test_no_more_queries_than_the_queryset(world: dict[str, Any], query: str) -> None:
    for player in world["players"]:
        url = f"{API}/matches?{query}"
        fast, reference = _list_queries(player, url), _reference_queries(player, url)
        assert len(fast) == len(reference) <= 2, (player.name, query, fast)


def test_the_list_reads_no_hidden_column(world: dict[str, Any]) -> None:
    alice = world["players"][0]
    queries = _list_queries(alice, f"{API}/matches")
    assert len(queries) == 2  # the page, and its seats with their players' names
    text = " ".join(queries)
    for hidden in ('"state"', "bot_memory", "bot_options", "client_seed", "password", "private"):
        assert hidden not in text
    # The seed only for a match that is over: the database leaves it out of every other row.
    assert text.count('"games_match"."seed"') == 1
    assert 'THEN "games_match"."seed" ELSE NULL END' in text
    finished = next(
        m for m in alice.get("/matches").json()["results"] if m["id"] == world["finished"]
    )
    assert finished["fairness"]["seed"] is not None


def test_the_page_query_is_the_querysets_sql_for_every_shape(db: None) -> None:
    """Same ``FROM``, ``WHERE``, ``ORDER BY`` and ``LIMIT``/``OFFSET`` as the sliced queryset
    (so the same plan): only the select list differs, and ``ORDER BY`` names the column by its
    position in it."""
    user = make_player().user
    by_position = f"ORDER BY {reads.ListedMatch._fields.index('created_at') + 1} "
    by_name = 'ORDER BY "games_match"."created_at" '
    shapes = 0
    for invited, awaiting_me, mine, status, game in itertools.product(
        (False, True), (False, True), (False, True), (None, "active"), (None, "gops")
    ):
        filters = reads.ListFilters(user.pk, status, mine, awaiting_me, invited, game)
        queryset = reads.match_list(
            user=user, status=status, mine=mine, awaiting_me=awaiting_me, invited=invited, game=game
        )
        for ordering, bound in itertools.product(("-created_at", "created_at"), (None, "lt", "gt")):
            expected = queryset.order_by(ordering)
            position = "2026-11-23 01:02:03.456789+00:00"
            if bound is not None:
                expected = expected.filter(**{f"created_at__{bound}": position})
            with CaptureQueriesContext(connection) as captured:
                list(expected[3:54])
                reads.match_page(
                    filters,
                    ordering=ordering,
                    bound=(bound, position) if bound else None,
                    low=3,
                    high=54,
                )
            sql = [q["sql"] for q in captured.captured_queries]
            assert len(sql) == 2  # nothing listed: no prefetch
            reference, compiled = (text[text.index(" FROM ") :] for text in sql)
            assert compiled.replace(by_position, by_name) == reference
            shapes += 1
    assert shapes == 192
