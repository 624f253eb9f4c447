"""Ratings (openskill, per player and game): updated in the change that finishes a rated
match, shown in its ``match_finished`` event, on the leaderboard and the profile."""

from __future__ import annotations

import importlib
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.db.models import F

from games.models import Match, Move, Rating
from games.services.bot_seats import bot_moves_play
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


def _play_steps(steps: int, players: list[Player]) -> str:
    """A 4-card GOPS match in which every seat plays its lowest card for ``steps`` steps."""
    match_id = start_match("gops", players, options=GOPS)
    for step in range(1, steps + 1):
        for player in players:
            low = min(player.match(match_id)["legal_moves"], key=lambda m: m["card"])
            assert player.move(match_id, step, low).status_code == 202
    return match_id


def _resign_after(steps: int, players: list[Player], resigning: Player) -> str:
    match_id = _play_steps(steps, players)
    assert resigning.post(f"/matches/{match_id}/resign").status_code == 200
    return match_id


def test_a_resignation_ranks_the_forfeited_seat_last(alice: Player, bob: Player) -> None:
    match_id = _resign_after(2, [alice, bob], alice)  # played enough to be rated
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
    assert Rating.objects.get().opponents == 1  # the random bot
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


def test_the_finishing_move_costs_three_round_trips_more(alice: Player, bob: Player) -> None:
    """Counted at the libpq level: the finishing move adds one upsert that creates and locks
    both rating rows, one read of whether the players are all people or all bot accounts and
    one of the pair's rated history (rating_rules); their update rides in the change's one
    write. A move that does not finish the match touches no rating."""
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
    upserts = [m for m in finishing.messages if m.startswith('INSERT INTO "games_rating"')]
    assert len(upserts) == 1, finishing

    # Authentication's reads (a token looked up, the revocation list polled when its last look
    # is older than the interval) fall in either move by the clock: only the moves' own count.
    def own(trips: RoundTrips) -> int:
        auth = ("accounts_accesstoken", "accounts_tokenrevocation")
        return sum(not any(table in m for table in auth) for m in trips.messages)

    assert own(finishing) == own(resolving) + 3, (resolving, finishing)


def test_bot_accounts_and_people_are_rated_apart(alice: Player, settings: Any) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
    robot, other = make_player("robot", bot=True), make_player("tin", bot=True)
    mixed = _play([alice, robot], winner=alice)
    assert _finished_event(alice, mixed)["ratings"] is None  # one pool each
    assert Rating.objects.get(user=alice.user, game="gops").played == 1
    bots = _play([robot, other], winner=robot)
    assert _finished_event(robot, bots)["ratings"] is not None
    people = alice.get("/games/gops/leaderboard").json()["results"]
    assert people == []
    board = alice.get("/games/gops/leaderboard?bots=true").json()["results"]
    assert [(e["player"], e["bot"]) for e in board] == [("robot", True), ("tin", True)]


def test_leaderboard_pages_by_cursor(player: object, settings: Any) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 1
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
@pytest.mark.parametrize("pair_limit", [1, 2])
def test_two_matches_of_the_same_players_finishing_at_once_both_rate(
    settings: Any, pair_limit: int
) -> None:
    """Real threads on PostgreSQL: both finishing changes lock the same two rating rows (in
    user-id order, whatever the seats), one waits for the other, neither deadlocks or loses
    the other's update; the second reads the first's result once it holds the lock, so a
    limit of one rated match per pair rates exactly one."""
    settings.FACEDOWN_RATING_PAIR_LIMIT = pair_limit
    ann, ben = make_player(), make_player()
    first = _play_steps(2, [ann, ben])
    second = _play_steps(2, [ben, ann])

    def resign(match_id: str) -> Any:
        def send(client: Any) -> Any:
            return client.post(f"{API}/matches/{match_id}/resign", {}, format="json")

        return send

    answers = race([resign(first), resign(second)], [ben, ann])
    assert [a.status for a in answers] == [200, 200]
    rows = {r.user_id: r for r in Rating.objects.filter(game="gops")}
    assert [(rows[p.user.pk].played, rows[p.user.pk].won) for p in (ann, ben)] == [(2, 1), (2, 1)]
    assert all(r.rated_matches == pair_limit for r in rows.values())


def test_a_second_account_resigning_early_feeds_no_rating(alice: Player) -> None:
    """The farming attack: a second account loses 30 times at once (resigning before it moved,
    or after one step). No match was played enough: nothing is rated, nobody is listed."""
    alt = make_player("alt")
    for attempt in range(30):
        steps = attempt % 2  # resign at step 1 or 2: under FACEDOWN_RATING_MIN_TURNS (2)
        match_id = _resign_after(steps, [alice, alt], alt)
        assert _finished_event(alice, match_id)["ratings"] is None
    row = Rating.objects.get(user=alice.user, game="gops")
    assert (row.played, row.won, row.rated_matches) == (30, 30, 0)
    assert (row.mu, row.sigma, row.opponents) == (DEFAULT_MU, DEFAULT_SIGMA, 0)
    assert alice.get("/games/gops/leaderboard").json()["results"] == []
    assert alice.get("/players/alice").json()["ratings"][0]["rating"] is None


def test_a_short_match_played_by_both_is_still_rated(alice: Player, bob: Player) -> None:
    match_id = _resign_after(2, [alice, bob], bob)  # both moved twice, then bob resigned
    changes = {c["seat"]: c for c in _finished_event(alice, match_id)["ratings"]}
    assert changes[0]["mu"] > DEFAULT_MU > changes[1]["mu"]
    completed = _play([alice, make_player()], winner=alice)  # run to its end: always played
    assert _finished_event(alice, completed)["ratings"] is not None


def test_results_between_the_same_players_count_once_per_window(
    alice: Player, bob: Player, settings: Any
) -> None:
    settings.FACEDOWN_RATING_PAIR_LIMIT = 1
    played = [_resign_after(2, [alice, bob], bob) for _ in range(3)]
    rated = [_finished_event(alice, m)["ratings"] is not None for m in played]
    assert rated == [True, False, False]
    row = Rating.objects.get(user=alice.user, game="gops")
    assert (row.played, row.won, row.rated_matches, row.opponents) == (3, 3, 1, 1)
    # The window (FACEDOWN_RATING_PAIR_WINDOW_HOURS, 24) has passed for those three.
    earlier = F("finished_at") - timedelta(hours=25)
    Match.objects.filter(pk__in=played).update(finished_at=earlier)
    later = _resign_after(2, [bob, alice], alice)
    assert _finished_event(bob, later)["ratings"] is not None
    row.refresh_from_db()
    assert (row.rated_matches, row.opponents) == (2, 1)  # bob was met before


def test_the_leaderboard_lists_players_with_enough_matches_and_opponents(
    alice: Player, bob: Player, carol: Player, settings: Any
) -> None:
    settings.FACEDOWN_LEADERBOARD_MIN_MATCHES = settings.FACEDOWN_LEADERBOARD_MIN_OPPONENTS = 2
    settings.FACEDOWN_RATING_PAIR_LIMIT = 1
    _resign_after(2, [alice, bob], bob)
    _resign_after(2, [alice, bob], bob)  # the same pair again: unrated
    assert alice.get("/games/gops/leaderboard").json()["results"] == []
    _resign_after(2, [alice, carol], carol)
    board = alice.get("/games/gops/leaderboard").json()["results"]
    assert [(e["player"], e["rated_matches"]) for e in board] == [("alice", 2)]
    rows = {r.user.username: r for r in Rating.objects.select_related("user")}
    assert {name: (r.rated_matches, r.opponents) for name, r in rows.items()} == {
        "alice": (2, 2),
        "bob": (1, 1),
        "carol": (1, 1),
    }


def _memory_until(players: list[Player], done: Any) -> str:
    """Memory (turn-based; a turn is two flips, two steps, more after a pair): the seat to act
    plays its first legal move until ``done(moves sent, turns completed)``, both per player."""
    match_id = start_match("memory", players, options={"pairs": 6})
    sent = dict.fromkeys((p.name for p in players), 0)
    turns = dict(sent)
    previous: str | None = None
    while True:
        (player,) = [p for p in players if p.match(match_id)["legal_moves"]]
        if previous is not None and player.name != previous:
            turns[previous] += 1
        if done(sent, turns):
            return match_id
        seen = player.match(match_id)
        answer = player.move(match_id, seen["step"], seen["legal_moves"][0])
        assert answer.status_code == 202, answer.content
        sent[player.name] += 1
        previous = player.name


def test_a_turn_based_match_counts_turns_not_steps(
    alice: Player, bob: Player, carol: Player
) -> None:
    # Bob's two flips are one turn: not played enough, though he sent two moves.
    early = _memory_until([alice, bob], lambda sent, turns: sent["bob"] == 2)
    bob_steps = list(Move.objects.filter(match_id=early, seat=1).values_list("step", flat=True))
    assert len(bob_steps) == 2 and bob_steps[1] == bob_steps[0] + 1
    assert bob.post(f"/matches/{early}/resign").status_code == 200
    assert _finished_event(alice, early)["ratings"] is None
    played = _memory_until([alice, carol], lambda sent, turns: min(turns.values()) >= 2)
    assert carol.post(f"/matches/{played}/resign").status_code == 200
    assert _finished_event(alice, played)["ratings"] is not None


def test_the_migration_counts_each_players_opponents_from_the_history(
    alice: Player, bob: Player, carol: Player
) -> None:
    _resign_after(2, [alice, bob], bob)
    _resign_after(2, [alice, bob], bob)  # unrated: the same pair again
    _resign_after(2, [carol, alice], alice)
    _resign_after(0, [bob, carol], carol)  # unrated: not played
    expected = {"alice": 2, "bob": 1, "carol": 1}
    Rating.objects.update(opponents=0)
    migration = importlib.import_module("games.migrations.0010_rating_opponents")
    migration.count_opponents(django_apps, None)
    rows = Rating.objects.select_related("user")
    assert {row.user.username: row.opponents for row in rows} == expected
