"""Match chat: seated players write, spectators read, never a match event; mutes, operators
hiding a message, the length limit, the throttle, and matches created without chat."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

from games.models import Match, MatchEvent
from social.chat import chat_listener_register, chat_listener_unregister
from social.models import ChatMessage, ChatMute, Seek
from tests.players import start_match


def say(player, match_id, text):
    return player.post(f"/matches/{match_id}/chat", {"text": text})


def test_players_talk_spectators_read_and_the_match_does_not_change(alice, bob, carol):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    before = alice.get(f"/matches/{match_id}")
    row = Match.objects.get(pk=match_id)
    events = MatchEvent.objects.filter(match_id=match_id).count()

    first = say(alice, match_id, "  good luck  ")
    assert first.status_code == 201, first.content
    assert first.json()["seq"] == 1 and first.json()["text"] == "good luck"
    assert say(bob, match_id, "you too").json()["seq"] == 2

    spectator = say(carol, match_id, "hello")
    assert spectator.status_code == 403 and spectator.json()["code"] == "not_seated"
    page = carol.get(f"/matches/{match_id}/chat").json()
    assert [(m["seq"], m["player"], m["text"]) for m in page["results"]] == [
        (1, "alice", "good luck"),
        (2, "bob", "you too"),
    ]
    assert page["last_seq"] == 2
    assert [m["seq"] for m in alice.get(f"/matches/{match_id}/chat?after=1").json()["results"]] == [
        2
    ]

    # Never a match event, never the match's version, seq or ETag.
    after = Match.objects.get(pk=match_id)
    assert (after.version, after.last_seq) == (row.version, row.last_seq)
    assert MatchEvent.objects.filter(match_id=match_id).count() == events
    assert alice.get(f"/matches/{match_id}")["ETag"] == before["ETag"]
    unchanged = alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=before["ETag"])
    assert unchanged.status_code == 304
    assert "chat" not in {e["type"] for e in alice.events(match_id)["results"]}


def test_length_limit_and_bad_input(alice, bob, settings):
    settings.FACEDOWN_CHAT_MAX_LENGTH = 10
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    for text in ("", "   ", "x" * 11):
        answer = say(alice, match_id, text)
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    assert alice.post(f"/matches/{match_id}/chat", {"text": 5}).status_code == 400
    assert alice.post(f"/matches/{match_id}/chat", {"text": "hi", "to": "bob"}).status_code == 400
    assert say(alice, match_id, "x" * 10).status_code == 201
    missing = say(alice, "00000000-0000-0000-0000-000000000000", "hi")
    assert missing.status_code == 404


def test_mute_hides_a_senders_messages_for_the_muter_only(alice, bob, carol):
    match_id = start_match("hols-der-geier", [alice, bob, carol])
    say(alice, match_id, "one")
    say(bob, match_id, "two")
    muted = alice.post("/chat/mutes", {"player": "bob"})
    assert muted.status_code == 200 and muted.json() == {"muted": ["bob"]}
    assert alice.get("/chat/mutes").json() == {"muted": ["bob"]}
    say(bob, match_id, "three")
    page = alice.get(f"/matches/{match_id}/chat").json()
    assert [m["text"] for m in page["results"]] == ["one"]
    assert page["last_seq"] == 3  # the client moves on past the muted messages
    assert len(carol.get(f"/matches/{match_id}/chat").json()["results"]) == 3
    assert alice.post("/chat/mutes", {"player": "alice"}).status_code == 400
    assert alice.post("/chat/mutes", {"player": "nobody"}).status_code == 404
    assert alice.post("/chat/mutes", {"player": "bob", "muted": False}).json() == {"muted": []}
    assert len(alice.get(f"/matches/{match_id}/chat").json()["results"]) == 3


def test_an_operator_hides_a_message_with_a_reason(alice, bob, carol):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    say(bob, match_id, "something rude")
    refused = alice.post(f"/matches/{match_id}/chat/1/hide", {"reason": "rude"})
    assert refused.status_code == 403
    carol.user.is_staff = True
    carol.user.save()
    no_reason = carol.post(f"/matches/{match_id}/chat/1/hide", {"reason": " "})
    assert no_reason.status_code == 400
    hidden = carol.post(f"/matches/{match_id}/chat/1/hide", {"reason": "insult"})
    assert hidden.status_code == 200, hidden.content
    assert hidden.json()["hidden_reason"] == "insult"
    seen = alice.get(f"/matches/{match_id}/chat").json()["results"][0]
    assert seen == {**seen, "hidden": True, "text": None} and "hidden_reason" not in seen
    staff = carol.get(f"/matches/{match_id}/chat").json()["results"][0]
    assert staff["text"] == "something rude" and staff["hidden_reason"] == "insult"
    assert carol.post(f"/matches/{match_id}/chat/9/hide", {"reason": "x"}).status_code == 404


def test_a_match_created_without_chat_has_none(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3}, chat=False)
    assert alice.match(match_id)["chat"] is False
    for answer in (say(alice, match_id, "hi"), alice.get(f"/matches/{match_id}/chat")):
        assert answer.status_code == 409 and answer.json()["code"] == "chat_disabled"
    assert alice.create("gops", ["me", "open"], chat="no").status_code == 400


def test_chat_has_its_own_throttle_scope(alice, bob, monkeypatch):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "chat": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    try:
        assert [say(alice, match_id, f"m{i}").status_code for i in range(3)] == [201, 201, 429]
        assert alice.get(f"/matches/{match_id}/chat").status_code == 200  # reads unaffected
        assert alice.move(match_id, 1, alice.match(match_id)["legal_moves"][0]).status_code == 202
    finally:
        cache.clear()


@pytest.mark.django_db(transaction=True)
def test_listeners_hear_a_message_after_it_commits(player):
    heard: list[tuple[str, dict]] = []

    def listener(match_id, message):
        heard.append((str(match_id), message))

    chat_listener_register(listener)
    try:
        a, b = player(), player()
        match_id = start_match("gops", [a, b], options={"num_cards": 3})
        say(a, match_id, "hello")
        assert heard == [(match_id, heard[0][1])] and heard[0][1]["text"] == "hello"
    finally:
        chat_listener_unregister(listener)


def test_an_operator_hides_a_message_in_the_console(alice, bob, admin_client):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    say(bob, match_id, "spam")
    message = ChatMessage.objects.get(match_id=match_id, seq=1)
    url = f"/admin/social/chatmessage/{message.pk}/change/"
    assert admin_client.get(url).status_code == 200
    assert admin_client.post(url, {"hidden_reason": "spam"}).status_code == 302
    message.refresh_from_db()
    assert message.hidden and message.hidden_reason == "spam" and message.hidden_by is not None
    assert alice.get(f"/matches/{match_id}/chat").json()["results"][0]["text"] is None


def test_export_holds_ones_messages_and_closing_cancels_seeks(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    say(alice, match_id, "mine")
    say(bob, match_id, "not mine")
    alice.post("/chat/mutes", {"player": "bob"})
    seek = alice.post("/seeks", {"game": "gops", "players": 2}).json()
    export = alice.get("/accounts/me/export").json()
    assert [(m["match"], m["seq"], m["text"]) for m in export["chat_messages"]] == [
        (match_id, 1, "mine")
    ]
    closed = alice.client.delete(
        "/api/v1/accounts/me", {"password": "correct-horse-battery"}, format="json"
    )
    assert closed.status_code == 204, closed.content
    assert Seek.objects.get(pk=seek["id"]).status == "cancelled"
    assert not ChatMute.objects.exists()
    assert bob.get("/seeks").json()["results"] == []


INVISIBLE = [
    "\u200b",  # zero-width space
    "\u200b\u200c\u200d\u2060",  # zero-width (non-)joiners, word joiner
    "\u00ad\ufeff",  # soft hyphen, BOM
    "\u3000\u2003\u00a0",  # ideographic, em and no-break spaces
    "\u3164\u3164",  # Hangul filler
    "\u2800",  # blank Braille pattern
    "\u0301\u0301",  # combining marks with no base
    "\u2028\u2029",  # line and paragraph separators
    "\U000e0041\U000e0042",  # tag characters
]
BIDI = ["\u202egnp.exe", "hi \u202d", "a\u202ab", "\u2066x\u2069", "\u2067\u2068 y", "z\u202c"]


def test_a_message_that_shows_nothing_or_reorders_others_is_refused(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    for text in INVISIBLE + BIDI:
        answer = say(alice, match_id, text)
        assert answer.status_code == 400, repr(text)
        assert answer.json()["code"] == "validation_error" and "text" in answer.json()["errors"]
    assert not ChatMessage.objects.exists()
    # Right-to-left text, its marks, emoji with joiners and accents are shown as they are.
    for text in ("שלום \u200f!", "مرحبا", "👩\u200d👩\u200d👧", "e\u0301te\u0301", "a\u200bb"):
        assert say(alice, match_id, text).status_code == 201, repr(text)


def test_an_operators_reason_is_held_to_the_same_rule(alice, bob, carol):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    say(bob, match_id, "something rude")
    carol.user.is_staff = True
    carol.user.save()
    for reason in ("\u200b", "rude\u202e"):
        answer = carol.post(f"/matches/{match_id}/chat/1/hide", {"reason": reason})
        assert answer.status_code == 400 and "reason" in answer.json()["errors"]
    assert not ChatMessage.objects.get(match_id=match_id, seq=1).hidden


def test_a_name_is_muted_and_unmuted_in_any_case(alice, bob):
    match_id = start_match("gops", [alice, bob], options={"num_cards": 3})
    say(bob, match_id, "one")
    for name in ("BOB", "Bob", "\uff22\uff4f\uff42"):  # the last in full-width letters
        muted = alice.post("/chat/mutes", {"player": name})
        assert muted.status_code == 200 and muted.json() == {"muted": ["bob"]}, name
        assert alice.get(f"/matches/{match_id}/chat").json()["results"] == []
        unmuted = alice.post("/chat/mutes", {"player": name.lower(), "muted": False})
        assert unmuted.json() == {"muted": []}
    assert ChatMute.objects.count() == 0
    assert alice.post("/chat/mutes", {"player": "ALICE"}).status_code == 400  # yourself


def test_a_profile_is_found_in_any_case(alice):
    answer = alice.get("/players/ALICE")
    assert answer.status_code == 200 and answer.json()["player"] == "alice"
