"""The operator console through Django's test client: lists, filters, search, the read-only
match page, its operator forms, the list actions, and the user admin's actions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.admin import helpers
from django.test import Client

from accounts.models import AccessToken, User
from games.models import Match, MatchEvent, Seat
from games.services import operators
from tests.clocks import overdue
from tests.players import Player, start_match

CHANGELIST = "/admin/games/match/"
TIMED = {"per_step_seconds": 600, "on_timeout": "auto_move"}


def _page(match_id: str) -> str:
    return f"{CHANGELIST}{match_id}/change/"


def _operate(match_id: str, operation: str) -> str:
    return f"{CHANGELIST}{match_id}/operate/{operation}/"


def _listed(console: Client, query: str = "") -> str:
    response = console.get(CHANGELIST + query)
    assert response.status_code == 200, response.content
    return response.content.decode()


def _last(match_id: str) -> MatchEvent:
    return MatchEvent.objects.filter(match_id=match_id).order_by("-seq")[0]


def test_the_console_needs_a_staff_login(alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    anonymous = Client()
    assert anonymous.get(CHANGELIST).status_code == 302
    player = Client()
    player.force_login(alice.user)
    for url in (CHANGELIST, _page(match_id), _operate(match_id, "abort")):
        assert player.get(url).status_code == 302  # to the admin login
    assert player.post(_operate(match_id, "abort"), {"reason": "x"}).status_code == 302
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE


def test_staff_without_the_change_permission_cannot_operate(alice: Player, bob: Player):
    from django.contrib.auth.models import Permission

    match_id = start_match("gops", [alice, bob])
    viewer = User.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client = Client()
    client.force_login(viewer)
    page = client.get(_page(match_id))
    assert page.status_code == 200 and b"/operate/" not in page.content
    assert client.post(_operate(match_id, "abort"), {"reason": "x"}).status_code == 403
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE


def test_changelist_filters_and_search(
    console: Client, alice: Player, bob: Player, carol: Player, operator: User
):
    gops = start_match("gops", [alice, bob], time_control=TIMED)
    hols = start_match("hols-der-geier", [bob, carol])
    with_bot = alice.create("gops", ["me", {"bot": "greedy"}]).json()["id"]
    aborted = start_match("gops", [carol, alice])
    operators.match_abort(match_id=aborted, operator=operator, reason="test")
    overdue(gops, by=timedelta(seconds=5))
    everything = {gops, hols, with_bot, aborted}

    def shown(query: str = "") -> set[str]:
        html = _listed(console, query)
        return {match_id for match_id in everything if match_id in html}

    assert shown() == everything
    page = _listed(console)
    for column in ("game", "status", "step", "players", "deadline", "created"):
        assert column in page.lower()
    assert "alice, bob" in page and "[bot greedy]" in page
    assert shown("?game=hols-der-geier") == {hols}
    assert shown("?status=aborted") == {aborted}
    assert shown("?status=active") == {gops, hols, with_bot}
    assert shown("?overdue=yes") == {gops}
    assert shown("?overdue=no") == everything - {gops}
    assert shown("?has_bots=yes") == {with_bot}
    assert shown("?has_bots=no") == everything - {with_bot}
    assert shown("?q=carol") == {hols, aborted}
    assert shown("?q=alice") == {gops, with_bot, aborted}
    assert shown(f"?q={hols}") == {hols}
    assert shown("?q=nobody") == set()
    # a seat handed to a bot counts as a bot
    operators.seat_replace_with_bot(match_id=hols, seat=0, operator=operator, reason="away")
    assert shown("?has_bots=yes") == {with_bot, hols}
    assert shown("?has_bots=yes&game=gops&q=alice") == {with_bot}


def test_the_match_page_is_read_only(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    alice.move(match_id, 1, {"card": 5})
    page = console.get(_page(match_id))
    assert page.status_code == 200
    html = page.content.decode()
    for text in ("Remaining prizes", "step_opened", "move_submitted", "controlled by", "alice"):
        assert text in html
    for operation in operators_urls(match_id):
        assert operation in html
    # no seat is played by a bot: nothing to give back
    assert _operate(match_id, "return-seat") not in html
    assert 'name="_save"' not in html and "deletelink" not in html
    assert console.get(f"{CHANGELIST}add/").status_code == 403
    assert console.post(_page(match_id), {"status": "aborted"}).status_code == 403
    assert console.post(f"{CHANGELIST}{match_id}/delete/").status_code == 403
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    assert console.get(_page("00000000-0000-0000-0000-000000000000")).status_code == 302


def operators_urls(match_id: str) -> list[str]:
    return [
        _operate(match_id, name) for name in ("abort", "extend", "force-timeout", "replace-seat")
    ]


def test_the_page_of_a_finished_match_shows_the_seed(
    console: Client, alice: Player, bob: Player, operator: User
):
    match_id = start_match("gops", [alice, bob])
    seed = Match.objects.get(pk=match_id).seed
    assert seed not in console.get(_page(match_id)).content.decode()
    operators.match_abort(match_id=match_id, operator=operator, reason="done")
    html = console.get(_page(match_id)).content.decode()
    assert seed in html and "done" in html


def test_every_operation_form_renders(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    for url in operators_urls(match_id):
        response = console.get(url)
        assert response.status_code == 200, url
        assert b'name="reason"' in response.content
    assert console.get(_operate(match_id, "nonsense")).status_code == 302


def test_abort_from_the_match_page(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    empty = console.post(_operate(match_id, "abort"), {"reason": ""})
    assert empty.status_code == 200 and b"This field is required" in empty.content
    assert Match.objects.get(pk=match_id).status == Match.Status.ACTIVE
    done = console.post(_operate(match_id, "abort"), {"reason": "duplicate match"})
    assert done.status_code == 302 and done["Location"] == _page(match_id)
    assert Match.objects.get(pk=match_id).status == Match.Status.ABORTED
    assert _last(match_id).data == {
        "operator": "operator",
        "reason": "duplicate match",
        "seat": None,
    }
    again = console.post(_operate(match_id, "abort"), {"reason": "again"}, follow=False)
    assert again.status_code == 200 and b"The match is aborted" in again.content


def test_extend_from_the_match_page(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob], time_control=TIMED)
    before = Match.objects.get(pk=match_id).deadline
    done = console.post(
        _operate(match_id, "extend"), {"reason": "holiday", "seconds": "3600", "step": "1"}
    )
    assert done.status_code == 302
    assert Match.objects.get(pk=match_id).deadline == before + timedelta(hours=1)
    event = _last(match_id)
    assert event.type == "deadline_extended" and event.data["reason"] == "holiday"
    stale = console.post(
        _operate(match_id, "extend"), {"reason": "again", "seconds": "60", "step": "7"}
    )
    assert stale.status_code == 200 and b"no longer open" in stale.content
    untimed = start_match("gops", [alice, bob])
    refused = console.post(_operate(untimed, "extend"), {"reason": "r", "seconds": "60"})
    assert refused.status_code == 200 and b"untimed" in refused.content


def test_force_timeout_from_the_match_page(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    alice.move(match_id, 1, {"card": 3})
    done = console.post(_operate(match_id, "force-timeout"), {"reason": "bob left", "step": "1"})
    assert done.status_code == 302
    assert Match.objects.get(pk=match_id).step == 2
    forced = MatchEvent.objects.get(match_id=match_id, type="deadline_forced")
    assert forced.data == {"operator": "operator", "reason": "bob left"}


def test_seat_to_a_bot_and_back_from_the_match_page(console: Client, alice: Player, bob: Player):
    match_id = start_match("gops", [alice, bob])
    form = console.get(_operate(match_id, "replace-seat")).content.decode()
    assert 'value="1"' in form and "greedy" in form
    done = console.post(
        _operate(match_id, "replace-seat"), {"reason": "away", "seat": "1", "bot": "greedy"}
    )
    assert done.status_code == 302
    seat = Seat.objects.get(match_id=match_id, index=1)
    assert seat.controlled_by == Seat.Controller.BOT and seat.bot == "greedy"
    assert _last(match_id).data["operator"] == "operator"
    # only bob's seat can be given back
    back = console.get(_operate(match_id, "return-seat")).content.decode()
    assert 'value="1"' in back and 'value="0"' not in back
    refused = console.post(_operate(match_id, "return-seat"), {"reason": "x", "seat": "0"})
    assert refused.status_code == 200
    done = console.post(_operate(match_id, "return-seat"), {"reason": "bob is back", "seat": "1"})
    assert done.status_code == 302
    seat.refresh_from_db()
    assert seat.controlled_by == Seat.Controller.PLAYER and seat.bot == ""
    assert _last(match_id).type == "seat_returned"
    follow = console.get(_page(match_id)).content.decode()
    assert "bob is back" in follow


def _action(console: Client, action: str, ids: list[str], **fields: Any) -> Any:
    body: dict[str, Any] = {"action": action, helpers.ACTION_CHECKBOX_NAME: ids, **fields}
    return console.post(CHANGELIST, body)


def test_list_actions_ask_for_a_reason_then_act(
    console: Client, alice: Player, bob: Player, carol: Player
):
    first = start_match("gops", [alice, bob], time_control=TIMED)
    second = start_match("gops", [alice, carol], time_control=TIMED)
    asked = _action(console, "extend_selected", [first, second], index="0")
    assert asked.status_code == 200 and b'name="reason"' in asked.content
    assert first in asked.content.decode() and second in asked.content.decode()
    missing = _action(console, "extend_selected", [first], apply="yes", seconds="60", reason="")
    assert missing.status_code == 200 and b"This field is required" in missing.content
    deadlines = dict(Match.objects.filter(pk__in=[first, second]).values_list("id", "deadline"))
    done = _action(
        console, "extend_selected", [first, second], apply="yes", seconds="60", reason="outage"
    )
    assert done.status_code == 302
    for match in Match.objects.filter(pk__in=[first, second]):
        assert match.deadline == deadlines[match.id] + timedelta(seconds=60)
        assert _last(str(match.id)).data["reason"] == "outage"

    alice.move(first, 1, {"card": 1})
    done = _action(console, "force_timeout_selected", [first], apply="yes", reason="afk")
    assert done.status_code == 302 and Match.objects.get(pk=first).step == 2

    done = _action(console, "abort_selected", [first, second], apply="yes", reason="cleanup")
    assert done.status_code == 302
    assert set(Match.objects.filter(pk__in=[first, second]).values_list("status", flat=True)) == {
        Match.Status.ABORTED
    }
    # a refused match is reported, the others still done
    third = start_match("gops", [bob, carol])
    _action(console, "abort_selected", [first, third], apply="yes", reason="again")
    assert Match.objects.get(pk=third).status == Match.Status.ABORTED
    listing = console.get(CHANGELIST).content.decode()
    assert "refused for" in listing


def test_user_admin_deactivates_and_resets_tokens(
    console: Client, alice: Player, bob: Player, operator: User
):
    users = "/admin/accounts/user/"
    assert alice.get("/accounts/me").status_code == 200
    old = alice.token
    response = console.post(
        users,
        {"action": "reset_tokens", helpers.ACTION_CHECKBOX_NAME: [str(alice.user.pk)]},
    )
    assert response.status_code == 302
    assert not AccessToken.objects.filter(user=alice.user).exists()
    assert alice.get("/accounts/me").status_code == 401
    logged_in = alice.client.post(
        "/api/v1/accounts/token",
        {"username": alice.name, "password": "correct-horse-battery"},
        format="json",
    )
    assert logged_in.json()["token"] != old
    alice.client.credentials(HTTP_AUTHORIZATION=f"Bearer {logged_in.json()['token']}")
    assert alice.get("/accounts/me").status_code == 200

    response = console.post(
        users,
        {
            "action": "deactivate_users",
            helpers.ACTION_CHECKBOX_NAME: [str(bob.user.pk), str(operator.pk)],
        },
    )
    assert response.status_code == 302
    assert not User.objects.get(pk=bob.user.pk).is_active
    assert User.objects.get(pk=operator.pk).is_active  # never yourself
    assert bob.get("/accounts/me").status_code == 401
    assert console.get(users).status_code == 200


def test_the_console_names_matches_in_the_plural(console: Client) -> None:
    index = console.get("/admin/").content.decode()
    assert ">Matches<" in index and "Matchs" not in index
    changelist = console.get(CHANGELIST).content.decode()
    assert "Matchs" not in changelist
