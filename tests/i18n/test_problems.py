"""Problems in the reader's language: the profile's, else ``Accept-Language``, else English.
The ``code`` stays, and success bodies and ETags are the same bytes in every language."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.players import API, Player, start_match

PROBLEM = "application/problem+json"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith(PROBLEM)
    body = dict(response.json())
    assert body["code"] == code
    return body


def test_a_problem_in_german_keeps_its_code(alice: Player) -> None:
    missing = f"/matches/{uuid.uuid4()}"
    english = problem(alice.get(missing), 404, "not_found")
    german = problem(alice.get(missing, HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9"), 404, "not_found")
    assert english["title"] == "Not found" and german["title"] == "Nicht gefunden"
    assert german["detail"] == "Keine Partie mit dieser ID."
    assert german["type"] == english["type"] and german["status"] == english["status"]


def test_the_profile_language_comes_before_the_browser(alice: Player) -> None:
    changed = alice.client.patch(f"{API}/accounts/me", {"language": "de"}, format="json")
    assert changed.status_code == 200 and changed.json()["language"] == "de"
    body = problem(
        alice.post("/matches", {"game": "chess"}, HTTP_ACCEPT_LANGUAGE="en"),
        400,
        "validation_error",
    )
    assert body["title"] == "Ungültige Anfrage"
    assert body["detail"] == "Die Anfrage enthält ungültige Felder."
    assert set(body["errors"]) >= {"seats"}
    # A field message of DRF's own catalogue, in German too.
    assert body["errors"]["seats"] == ["Dieses Feld ist zwingend erforderlich."]
    # And one of our own, marked where it is raised.
    typo = alice.post("/matches", {"game": "gops", "seats": ["me", "open"], "sneaky": 1})
    assert problem(typo, 400, "validation_error")["errors"] == {"sneaky": ["Unbekanntes Feld."]}


def test_an_unknown_language_is_refused_with_a_code(alice: Player) -> None:
    answer = alice.client.patch(f"{API}/accounts/me", {"language": "xx"}, format="json")
    assert problem(answer, 400, "validation_error")["errors"].keys() == {"language"}
    anonymous = APIClient().get(f"{API}/nothing-here", HTTP_ACCEPT_LANGUAGE="de")
    assert problem(anonymous, 404, "not_found")["detail"] == "Unter dieser Adresse gibt es nichts."


@pytest.mark.parametrize("language", ["en", "de"])
def test_success_bodies_and_etags_are_the_same_in_every_language(
    alice: Player, bob: Player, language: str
) -> None:
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    english = alice.get(f"/matches/{match_id}")
    alice.user.language = language
    alice.user.save(update_fields=["language"])
    for accept in ("en", "de-DE", "fr"):
        read = alice.get(f"/matches/{match_id}", HTTP_ACCEPT_LANGUAGE=accept)
        assert read.content == english.content and read["ETag"] == english["ETag"]
        assert "Content-Language" not in read
        games = alice.get("/games", HTTP_ACCEPT_LANGUAGE=accept)
        assert games.content == alice.get("/games").content
    moved = alice.move(match_id, 1, {"card": 1}, HTTP_ACCEPT_LANGUAGE="de")
    assert moved.status_code == 202 and "Content-Language" not in moved


def test_the_problems_of_vacations_and_proposals_in_german(alice: Player, bob: Player) -> None:
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    home = alice.client.delete(f"{API}/accounts/me/vacation", **german)
    body = problem(home, 409, "vacation_conflict")
    assert (body["title"], body["detail"]) == (
        "Urlaub bereits in diesem Zustand",
        "Du bist nicht im Urlaub.",
    )
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    untimed = alice.post(f"/matches/{match_id}/proposals", {"kind": "pause"}, **german)
    assert problem(untimed, 409, "pause_not_allowed")["title"] == "Pause nicht erlaubt"
    made = alice.post(f"/matches/{match_id}/proposals", {"kind": "abort"}, **german)
    assert made.status_code == 201, made.content
    again = bob.post(f"/matches/{match_id}/proposals", {"kind": "abort"}, **german)
    assert problem(again, 409, "proposal_open")["title"] == "Ein Vorschlag ist offen"


def test_the_problems_of_tournaments_in_german(alice: Player, bob: Player) -> None:
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    starts = (timezone.now() + timedelta(days=1)).isoformat()
    body = {
        "name": "Pokal",
        "game": "gops",
        "format": "round_robin",
        "round_limit_seconds": 86400,
        "starts_at": starts,
        "max_players": 2,
    }
    created = alice.post("/tournaments", body, **german)
    assert created.status_code == 201, created.content
    tid = created.json()["id"]
    assert alice.post(f"/tournaments/{tid}/join").status_code == 200
    assert bob.post(f"/tournaments/{tid}/join").status_code == 200
    again = bob.post(f"/tournaments/{tid}/join", **german)
    assert problem(again, 409, "already_registered")["title"] == "Schon angemeldet"
    started = bob.post(f"/tournaments/{tid}/start", **german)
    assert problem(started, 403, "permission_denied")["detail"] == (
        "Nur die Turnierleitung darf das."
    )


def test_the_problems_of_conditional_moves_in_german(alice: Player, bob: Player) -> None:
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    memory = start_match("memory", [alice, bob])
    refused = alice.get(f"/matches/{memory}/conditional-moves", **german)
    body = problem(refused, 409, "conditional_moves_unavailable")
    assert body["title"] == "Bedingte Züge nicht verfügbar"
    assert body["detail"].startswith("Bedingte Züge gibt es nur in Fernpartien")
    daily = {"per_step_seconds": 86400}
    gops = start_match("gops", [alice, bob], options={"num_cards": 3}, time_control=daily)
    rules = {"rules": [{"pot": [7], "card": 4}]}
    bad = alice.client.put(
        f"{API}/matches/{gops}/conditional-moves", rules, format="json", **german
    )
    errors = problem(bad, 400, "validation_error")["errors"]
    assert errors == {
        "rules.0.card": ["Eine Karte, die dieses Spiel einem Platz gibt."],
        "rules.0.pot": [
            "null (jeder Pott) oder eine Liste von Pottwerten, die dieses Spiel zeigen kann."
        ],
    }


def test_the_problems_of_substitutes_in_german(alice: Player, bob: Player, carol: Player) -> None:
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    slow = {"options": {"num_cards": 3}, "time_control": {"per_step_seconds": 2 * 86_400}}
    match_id = start_match("gops", [alice, bob, carol], **slow)
    playing = alice.post(f"/matches/{match_id}/substitutes", {"seat": 2}, **german)
    assert problem(playing, 409, "seat_not_offerable")["title"] == "Platz nicht anzubieten"
    assert carol.post(f"/matches/{match_id}/resign").status_code == 200
    seated = alice.post(
        f"/matches/{match_id}/substitutes", {"seat": 2, "invitee": bob.name}, **german
    )
    body = problem(seated, 409, "played_in_match")
    assert body["detail"] == (
        "Du hast oder hattest einen Platz in dieser Partie: Niemand darf zwei Plätze einer "
        "Partie spielen."
    )


def _vary(response: Any) -> set[str]:
    return {part.strip().lower() for part in response.get("Vary", "").split(",") if part.strip()}


def test_a_problem_names_what_its_language_came_from_in_vary(alice: Player) -> None:
    """A shared cache must not hand one reader's language to another (#46): the header, the
    language cookie and, where the profile counts, the token and the session."""
    missing = f"/matches/{uuid.uuid4()}"
    for answer in (
        alice.get(missing, HTTP_ACCEPT_LANGUAGE="de"),  # a service's problem (DRF)
        alice.post("/matches", {"game": "chess"}),  # a validation problem
        APIClient().get(f"{API}/nothing-here", HTTP_ACCEPT_LANGUAGE="de"),  # Django's 404
    ):
        assert response_is_problem(answer)
        assert _vary(answer) >= {"accept-language", "cookie", "authorization"}, answer.headers
    refused = APIClient().post(
        f"{API}/matches", b"{", content_type="application/json", HTTP_ACCEPT_LANGUAGE="de"
    )
    assert response_is_problem(refused) and _vary(refused) >= {"accept-language", "cookie"}


def response_is_problem(response: Any) -> bool:
    return bool(response["Content-Type"].startswith(PROBLEM))
