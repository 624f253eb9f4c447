"""Ratings (openskill, per player and game): updated in the change that finishes a rated
match, shown in its ``match_finished`` event, on the leaderboard and the profile."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Rating
from games.services.bots import bot_moves_play
from games.services.ratings import BOT_SIGMA, DEFAULT_MU, DEFAULT_SIGMA, bot_rating
from tests.api.test_concurrency import race
from tests.players import API, Player, make_player, start_match
from tests.roundtrips import RoundTrips, count_round_trips

pytestmark = pytest.mark.django_db

#: Four cards: the others bid 1, 2, 3, 4 and ``_play``'s chosen winner 2, 3, 4, 1, so it
#: takes three prizes of four (at least 1 + 2 + 3 against at most 4): it always wins.
GOPS = {"num_cards": 4}


def _finished_event(player: Player, match_id: str) -> dict:
    events = player.events(match_id)["results"]
    (finished,) = [e for e in events if e["type"] == "match_finished"]
    return finished["data"]


def _play(players: list[Player], winner: Player | None = None, **extra: object) -> str:
    """A 4-card GOPS match that ``winner`` wins (GOPS above); without one every bid ties."""
    match_id = start_match("gops", players, options=GOPS, **extra)
    for _ in range(10):
        state = players[0].match(match_id)
        if state["status"] != "active":
            break
        for player in players:
            seen = player.match(match_id)
            if not seen["legal_moves"]:
                continue
            cards = sorted(seen["legal_moves"], key=lambda m: m["card"])
            move = cards[min(1, len(cards) - 1)] if player is winner else cards[0]
            assert player.move(match_id, seen["step"], move).status_code == 202
    return match_id


def test_a_rated_match_moves_the_winner_up_and_the_loser_down(alice: Player, bob: Player) -> None:
    match_id = _play([alice, bob], winner=alice)
    assert alice.match(match_id)["result"]["winners"] == [0]
    winner, loser = 0, 1
    data = _finished_event(bob, match_id)
    changes = {c["seat"]: c for c in data["ratings"]}
    start = round(DEFAULT_MU - 3 * DEFAULT_SIGMA, 2)
    assert changes[0]["before"] == changes[1]["before"] == start
    assert changes[winner]["after"] > start and changes[winner]["mu"] > DEFAULT_MU
    assert changes[loser]["mu"] < DEFAULT_MU
    users = [alice.user, bob.user]
    mine = Rating.objects.get(user=users[winner], game="gops")
    assert (mine.played, mine.won, mine.rated_matches) == (1, 1, 1)
    assert round(mine.mu, 4) == changes[winner]["mu"]
    theirs = Rating.objects.get(user=users[loser], game="gops")
    assert (theirs.played, theirs.won) == (1, 0)
    # The result itself (and the audit's check of it) is unchanged by the ratings.
    assert set(alice.match(match_id)["result"]) == {"scores", "winners", "ranking", "reason"}


def test_an_unrated_match_counts_as_played_but_rates_nobody(alice: Player, bob: Player) -> None:
    match_id = _play([alice, bob], winner=bob, rated=False)
    assert alice.match(match_id)["rated"] is False
    assert _finished_event(alice, match_id)["ratings"] is None
    assert alice.match(match_id)["result"]["winners"] == [1]
    row = Rating.objects.get(user=bob.user, game="gops")
    assert (row.played, row.won, row.rated_matches, row.mu) == (1, 1, 0, DEFAULT_MU)
    board = alice.get("/games/gops/leaderboard").json()
    assert board == {"results": [], "next": None}


def test_a_tie_leaves_equal_players_equal(alice: Player, bob: Player) -> None:
    match_id = _play([alice, bob])  # both bid lowest: every prize is split
    result = alice.match(match_id)["result"]
    assert result["ranking"] == [[0, 1]]
    changes = _finished_event(alice, match_id)["ratings"]
    assert changes[0]["mu"] == changes[1]["mu"] == DEFAULT_MU
    assert changes[0]["sigma"] < DEFAULT_SIGMA


def test_a_resignation_ranks_the_forfeited_seat_last(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob], options=GOPS)
    assert alice.post(f"/matches/{match_id}/resign").status_code == 200
    changes = {c["seat"]: c for c in _finished_event(bob, match_id)["ratings"]}
    assert changes[1]["mu"] > DEFAULT_MU > changes[0]["mu"]


def test_bots_rate_humans_against_fixed_values_and_are_never_updated(alice: Player) -> None:
    created = alice.create("gops", ["me", {"bot": "random"}], options={"num_cards": 3})
    match_id = created.json()["id"]
    for step in (1, 2):  # the bot moves (no task runner here), then alice; step 3 is forced
        assert bot_moves_play(match_id=match_id, step=step) == 1
        high = alice.match(match_id)["legal_moves"][-1]
        assert alice.move(match_id, step, high).status_code == 202
    assert alice.match(match_id)["status"] == "finished"
    changes = _finished_event(alice, match_id)["ratings"]
    assert [c["seat"] for c in changes] == [0]  # the bot seat gets no change
    assert Rating.objects.count() == 1
    assert bot_rating("gops", "random") == bot_rating("gops", "random")
    assert bot_rating("gops", "greedy") == (DEFAULT_MU, BOT_SIGMA)


def test_bot_ratings_follow_the_arena_order() -> None:
    for game in ("gops", "hols-der-geier", "memory", "old-men-of-the-forest", "xato"):
        random, greedy, expert = (
            bot_rating(game, name)[0] for name in ("random", "greedy", "expert")
        )
        assert random < greedy, game
        assert expert > random, game
    # GOPS expert beats greedy 56.9 % head to head: a little above it, far below greedy's lead
    # over random (91.7 %).
    assert 25 < bot_rating("gops", "expert")[0] < 30 < 25 + (25 - bot_rating("gops", "random")[0])


def test_the_finishing_move_costs_one_round_trip_more(alice: Player, bob: Player) -> None:
    """Counted at the libpq level: the finishing move adds one upsert that creates and locks
    both rating rows; their update rides in the change's one write. A move that does not
    finish the match touches no rating."""
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    counts: list[RoundTrips] = []
    for step in (1, 2):  # step 2's resolution forces step 3, the last: it finishes the match
        assert alice.move(match_id, step, {"card": step}).status_code == 202
        with count_round_trips() as trips:
            assert bob.move(match_id, step, {"card": step}).status_code == 202
        counts.append(trips)
    assert bob.match(match_id)["status"] == "finished"
    resolving, finishing = counts
    assert not [m for m in resolving.messages if "games_rating" in m], resolving
    upserts = [m for m in finishing.messages if m.startswith("INSERT INTO games_rating")]
    assert len(upserts) == 1, finishing
    assert finishing.count == resolving.count + 1, (resolving, finishing)


def test_leaderboard_pages_by_cursor(player: object) -> None:
    players = [make_player(f"p{i}") for i in range(4)]
    _play(players[:2], winner=players[0])
    _play(players[2:], winner=players[2])
    first = players[0].get("/games/gops/leaderboard?page_size=3").json()
    assert [e["rank"] for e in first["results"]] == [1, 2, 3]
    assert first["next"]
    assert {e["player"] for e in first["results"][:2]} == {"p0", "p2"}
    rest = players[0].client.get(first["next"]).json()
    assert [e["rank"] for e in rest["results"]] == [4]
    assert rest["next"] is None
    assert players[0].get("/games/gops/leaderboard?cursor=bm9wZQ").status_code == 404
    assert players[0].get("/games/nope/leaderboard").status_code == 404


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_two_matches_of_the_same_players_finishing_at_once_both_rate() -> None:
    """Real threads on PostgreSQL: both finishing changes lock the same two rating rows (in
    user-id order, whatever the seats), one waits for the other, neither deadlocks or loses
    the other's update."""
    ann, ben = make_player(), make_player()
    first = start_match("gops", [ann, ben], options=GOPS)
    second = start_match("gops", [ben, ann], options=GOPS)

    def resign(match_id: str) -> Any:
        def send(client: Any) -> Any:
            return client.post(f"{API}/matches/{match_id}/resign", {}, format="json")

        return send

    answers = race([resign(first), resign(second)], [ben, ann])
    assert [a.status for a in answers] == [200, 200]
    rows = {r.user_id: r for r in Rating.objects.filter(game="gops")}
    assert [(rows[p.user.pk].played, rows[p.user.pk].won) for p in (ann, ben)] == [(2, 1), (2, 1)]
    assert all(r.rated_matches == 2 for r in rows.values())
