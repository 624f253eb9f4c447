"""The console's home page, user page and tournament controls, and the moderation log entry
every console action leaves."""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import transaction
from django.test import Client
from django.utils import timezone

from accounts.models import AccessToken, User
from console.texts import duration_words
from games.models import Match, Rating, Seat
from moderation.models import ModerationLogEntry
from tests.clocks import overdue
from tests.players import Player, make_player, start_match
from tests.tournaments.driver import tournament
from tournaments.models import Entry, Tournament, TournamentEvent
from tournaments.services.lifecycle import tournament_start

TIMED = {"per_step_seconds": 3600}


def _figure(html: str, label: str) -> tuple[str, str]:
    """The figure's link and number on the home page."""
    found = re.search(
        rf'<th scope="row">{re.escape(label)}</th>\s*<td class="figure"><a href="([^"]+)">'
        r"([^<]+)</a>",
        html,
    )
    assert found, label
    return found.group(1).replace("&amp;", "&"), found.group(2)


def test_durations_in_words() -> None:
    assert duration_words(604_800) == "7 days"
    assert duration_words(90_061) == "1 day 1 hour"
    assert duration_words(59) == "59 seconds"
    assert duration_words(0) == "0 seconds"


def test_the_home_page_counts_and_links_to_its_lists(
    console: Client, alice: Player, bob: Player, carol: Player
) -> None:
    late = start_match("gops", [alice, bob], time_control=TIMED)
    start_match("gops", [bob, carol])
    with_bot = alice.create("gops", ["me", {"bot": "greedy"}]).json()["id"]
    overdue(late, by=timedelta(seconds=5))
    Match.objects.filter(pk=with_bot).update(step_opened_at=timezone.now() - timedelta(minutes=5))
    User.objects.create_user("newcomer", password="correct-horse-battery")
    old = User.objects.create_user("old-timer", password="correct-horse-battery")
    User.objects.filter(pk=old.pk).update(date_joined=timezone.now() - timedelta(days=3))

    home = console.get("/admin/").content.decode()
    expected = {
        "Active matches": "3",
        "Overdue deadlines": "1",
        "Stalled bot moves": "1",
        "Stalled conditional-move jobs": "0",
        "Matches created in the last day": "3",
    }
    for label, number in expected.items():
        url, shown = _figure(home, label)
        assert shown == number, label
        listed = console.get(url)
        assert listed.status_code == 200, (label, url)
        if label != "Stalled conditional-move jobs":
            assert f"{number} match" in listed.content.decode() or f"{number} Match" in (
                listed.content.decode()
            ), (label, url)
    url, signups = _figure(home, "Sign-ups in the last day")
    listed = console.get(url).content.decode()
    assert "newcomer" in listed and "old-timer" not in listed
    assert (
        int(signups)
        == User.objects.filter(
            date_joined__gte=timezone.now() - timedelta(days=1), is_bot=False
        ).count()
    )


def test_a_running_tournament_on_the_home_page_and_its_controls(
    console: Client, operator: User
) -> None:
    carol, dan, erin = (make_player(name).user for name in ("carol", "dan", "erin"))
    cup = tournament(carol, [carol, dan, erin], name="Winter cup")
    tournament_start(tournament_id=cup.pk, by=carol)
    home = console.get("/admin/").content.decode()
    assert "Winter cup" in home and "7 days" in home
    _, running = _figure(home, "Running tournaments")
    assert running == "1"

    page = console.get(f"/admin/tournaments/tournament/{cup.pk}/change/").content.decode()
    assert "Round limit" in page and "604800" not in page and "Stand-in bot" in page
    control = f"/admin/tournaments/tournament/{cup.pk}/control/"
    assert f"{control}disqualify/" in page and f"{control}end/" in page
    assert f"{control}start/" not in page and f"{control}resume/" not in page
    # no reason: nothing happens
    assert console.post(f"{control}disqualify/", {"username": "dan"}).status_code == 200
    assert Entry.objects.get(tournament=cup, user=dan).status == Entry.Status.ACTIVE
    done = console.post(f"{control}disqualify/", {"username": "dan", "reason": "abuse"})
    assert done.status_code == 302
    assert Entry.objects.get(tournament=cup, user=dan).status == Entry.Status.DISQUALIFIED
    entry = ModerationLogEntry.objects.get(action="tournament_disqualify")
    assert entry.actor == operator and entry.subject_user == dan and entry.reason == "abuse"
    assert console.post(f"{control}end/", {"reason": "snowed in"}).status_code == 302
    assert Tournament.objects.get(pk=cup.pk).status == Tournament.Status.FINISHED
    ended = TournamentEvent.objects.get(tournament=cup, type="ended")
    assert ended.author == operator
    assert ModerationLogEntry.objects.get(action="tournament_end").reason == "snowed in"
    after = console.get(f"/admin/tournaments/tournament/{cup.pk}/change/").content.decode()
    assert f"{control}end/" not in after


def test_the_user_page_shows_the_player_and_revokes_a_token_with_a_reason(
    console: Client, operator: User, alice: Player, bob: Player
) -> None:
    robot = make_player("robot", bot=True)
    match_id = start_match("gops", [alice, bob])
    users = "/admin/accounts/user/"
    listed = console.get(users).content.decode()
    assert "Bot" in listed and "Person" in listed
    bots = console.get(f"{users}?kind=bot").content.decode()
    assert "robot" in bots and ">alice<" not in bots
    people = console.get(f"{users}?kind=person").content.decode()
    assert ">alice<" in people and ">robot<" not in people
    page = console.get(f"{users}{alice.user.pk}/change/").content.decode()
    assert "Person" in page and match_id in page and "tests" in page  # the token's name
    assert "Notifications" in page and "not on vacation" in page
    assert "Bot" in console.get(f"{users}{robot.user.pk}/change/").content.decode()

    token = AccessToken.objects.get(user=alice.user)
    revoke = f"{users}{alice.user.pk}/revoke-token/{token.pk}/"
    assert revoke in page
    assert console.post(revoke, {"reason": ""}).status_code == 200
    assert AccessToken.objects.filter(pk=token.pk).exists()
    assert console.post(revoke, {"reason": "leaked in a forum"}).status_code == 302
    assert not AccessToken.objects.filter(pk=token.pk).exists()
    assert alice.get("/accounts/me").status_code == 401
    entry = ModerationLogEntry.objects.get(action="token_revoke")
    assert entry.actor == operator and entry.subject_user == alice.user
    after = console.get(f"{users}{alice.user.pk}/change/").content.decode()
    assert "leaked in a forum" in after  # the account's moderation log


def test_a_match_action_is_logged_with_its_reason(
    console: Client, operator: User, alice: Player, bob: Player
) -> None:
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    url = f"/admin/games/match/{match_id}/operate/replace-seat/"
    answer = console.post(url, {"reason": "bob is away", "seat": 1, "bot": "greedy"})
    assert answer.status_code == 302
    assert Seat.objects.get(match_id=match_id, index=1).controlled_by == "bot"
    entry = ModerationLogEntry.objects.get(action="match_replace_seat")
    assert entry.actor == operator and entry.reason == "bob is away"
    assert entry.subject_type == "match" and entry.subject_id == match_id
    assert entry.changes == {"seat": "1", "bot": "greedy"}
    # refused by the service: no log entry
    again = console.post(url, {"reason": "twice", "seat": 1, "bot": "greedy"})
    assert again.status_code == 200
    assert ModerationLogEntry.objects.filter(action="match_replace_seat").count() == 1


def test_reports_on_the_home_and_user_pages_for_those_who_may_read_them(
    console: Client, alice: Player, bob: Player
) -> None:
    from django.contrib.auth.models import Group

    from moderation.models import Report, ReportFiling

    now = timezone.now()
    report = Report.objects.create(
        kind=Report.Kind.PLAYER,
        subject_key=f"player:{bob.user.pk}",
        reported_user=bob.user,
        created_at=now - timedelta(days=2),
        updated_at=now - timedelta(days=2),
    )
    ReportFiling.objects.create(
        report=report, reporter=alice.user, reason=ReportFiling.Reason.choices[0][0], at=now
    )
    home = console.get("/admin/").content.decode()
    url, number = _figure(home, "Open reports")
    assert number == "1" and "2 days" in home
    assert str(report.pk) in console.get(url).content.decode() or "1 report" in (
        console.get(url).content.decode()
    )
    _, old = _figure(home, "Reports waiting over a day")
    assert old == "1"
    about = console.get(f"/admin/accounts/user/{bob.user.pk}/change/").content.decode()
    assert "about this player" in about
    by = console.get(f"/admin/accounts/user/{alice.user.pk}/change/").content.decode()
    assert "filed by this player" in by
    # an operator without the moderators' rights sees neither
    operators = Group.objects.filter(name="operators").first()
    staff = User.objects.create_user("ops", password="correct-horse-battery", is_staff=True)
    if operators is not None:
        staff.groups.add(operators)
    client = Client()
    client.force_login(staff)
    assert "Open reports" not in client.get("/admin/").content.decode()


def test_the_console_speaks_german_to_a_german_operator(
    console: Client, operator: User, alice: Player, bob: Player
) -> None:
    User.objects.filter(pk=operator.pk).update(language="de")
    match_id = start_match("gops", [alice, bob], time_control={"per_step_seconds": 7 * 86_400})
    home = console.get("/admin/").content.decode()
    assert "Laufende Partien" in home and "Überfällige Fristen" in home
    assert "Facedown-Konsole" in home and "Active matches" not in home
    page = console.get(f"/admin/games/match/{match_id}/change/").content.decode()
    assert "Der Tisch, wie ihn ein Zuschauer sieht" in page and "7 Tage pro Schritt" in page
    assert "Die Partie abbrechen" in page


def test_each_role_reaches_only_its_own_controls(alice: Player, bob: Player) -> None:
    """Operators run matches and tournaments; moderators neither (moderation/ migrations'
    groups); no one revokes a token without the right to change users."""
    from django.contrib.auth.models import Group

    carol, dan, erin = (make_player(name).user for name in ("carol", "dan", "erin"))
    cup = tournament(carol, [carol, dan, erin])
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    token = AccessToken.objects.get(user=alice.user)
    urls = {
        "match": (f"/admin/games/match/{match_id}/operate/abort/", {"reason": "r"}),
        "tournament": (f"/admin/tournaments/tournament/{cup.pk}/control/end/", {"reason": "r"}),
        "token": (
            f"/admin/accounts/user/{alice.user.pk}/revoke-token/{token.pk}/",
            {"reason": "r"},
        ),
    }
    allowed = {"operators": {"match", "tournament"}, "moderators": set()}
    for role, may in allowed.items():
        staff = User.objects.create_user(role, password="correct-horse-battery", is_staff=True)
        staff.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(staff)
        for name, (url, data) in urls.items():
            with transaction.atomic():
                answer = client.post(url, data)
                expected = 302 if name in may else 403
                assert answer.status_code == expected, (role, name, answer.status_code)
                transaction.set_rollback(True)


def test_the_user_page_shows_ratings_as_players_read_them(console: Client, alice: Player) -> None:
    Rating.objects.create(
        user=alice.user, game="gops", mu=20.0, sigma=2.0, ordinal=14.0, rated_matches=12
    )
    Rating.objects.create(
        user=alice.user, game="old-men-of-the-forest", mu=25.0, sigma=7.0, ordinal=4.0,
        rated_matches=2,
    )  # fmt: skip
    Rating.objects.create(user=alice.user, game="xato", mu=25.0, sigma=25 / 3, ordinal=0.0)
    page = console.get(f"/admin/accounts/user/{alice.user.pk}/change/").content.decode()
    rows = re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td>", page)
    assert rows[:3] == [("GOPS", "2200"), ("Old Men of the Forest", "1700?"), ("Xato", "—")]
    assert "provisional" in page
