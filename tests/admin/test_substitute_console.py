"""The operator console offers a left seat to a substitute, withdraws offers, and shows a
match's offers and who played which steps of its seats that changed hands."""

from __future__ import annotations

from django.test import Client

from games.models import MatchEvent, SeatOffer
from tests.players import Player, make_player, start_match

CHANGELIST = "/admin/games/match/"
CORRESPONDENCE = {"kind": "per_step", "per_step_seconds": 2 * 86_400}


def _table(console: Client, match_id: str, css: str) -> str:
    response = console.get(f"{CHANGELIST}{match_id}/change/")
    assert response.status_code == 200, response.content
    html = response.content.decode()
    start = html.index(f'<table class="{css}">')
    return html[start : html.index("</table>", start)]


def test_an_operator_offers_a_seat_and_sees_who_played_it(
    console: Client, alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match(
        "gops", [alice, bob, carol], options={"num_cards": 5}, time_control=CORRESPONDENCE
    )
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    page = console.get(f"{CHANGELIST}{match_id}/operate/offer-seat/")
    assert page.status_code == 200 and "2: carol" in page.content.decode()
    dave = make_player("dave")
    done = console.post(
        f"{CHANGELIST}{match_id}/operate/offer-seat/",
        {"seat": 2, "invitee": "dave", "reason": "carol left for good"},
    )
    assert done.status_code == 302, done.content
    offer = SeatOffer.objects.get(match_id=match_id)
    assert offer.invitee_id == dave.user.pk and offer.offered_by.username == "operator"
    assert "<td>2</td><td>operator</td><td>dave</td><td>open</td>" in _table(
        console, match_id, "seat-offers"
    )
    # Offered once: a second offer is refused on the form, nothing written.
    again = console.post(
        f"{CHANGELIST}{match_id}/operate/offer-seat/", {"seat": 2, "reason": "open it"}
    )
    assert again.status_code == 200 and "already has an open offer" in again.content.decode()
    withdrawn = console.post(
        f"{CHANGELIST}{match_id}/operate/withdraw-offer/",
        {"offer": offer.pk, "reason": "dave is away"},
    )
    assert withdrawn.status_code == 302
    console.post(f"{CHANGELIST}{match_id}/operate/offer-seat/", {"seat": 2, "reason": "open it"})
    open_seat = SeatOffer.objects.get(match_id=match_id, status="open")
    assert open_seat.invitee is None
    assert dave.post(f"/matches/{match_id}/substitutes/{open_seat.pk}/accept").status_code == 200
    tenures = _table(console, match_id, "tenures")
    assert "<td>2</td><td>carol</td><td>1</td><td>1</td>" in tenures
    assert "<td>2</td><td>dave</td><td>2</td><td>—</td>" in tenures
    types = MatchEvent.objects.filter(match_id=match_id).values_list("type", flat=True)
    assert list(types).count("seat_offered") == 2


def test_the_offer_list_withdraws_open_offers(
    console: Client, alice: Player, bob: Player, carol: Player
) -> None:
    match_id = start_match(
        "gops", [alice, bob, carol], options={"num_cards": 5}, time_control=CORRESPONDENCE
    )
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    offer = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2}).json()
    listed = console.get("/admin/games/seatoffer/")
    assert listed.status_code == 200 and f">{offer['id']}<" in listed.content.decode()
    done = console.post(
        "/admin/games/seatoffer/",
        {"action": "withdraw_selected", "_selected_action": [offer["id"]]},
    )
    assert done.status_code == 302
    assert SeatOffer.objects.get(pk=offer["id"]).status == "withdrawn"
    assert console.get("/admin/games/seattenure/").status_code == 200
