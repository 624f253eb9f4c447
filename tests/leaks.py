"""Helpers for hidden-information tests: what a viewer can read, and alternative histories.

``alternatives`` plays several variants of one action on the *same* match, each inside a
savepoint that is rolled back afterwards, so the readings of the variants can be compared
byte for byte (same ids, same timestamps, same ETags) without any normalisation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from cardgames.engines.rng import DealRng
from games.catalog import get_engine
from games.models import Match
from tests.players import Player

RECEIPT_KEYS = frozenset({"receipt", "digest", "sig", "receipt_salt", "receipt_salts"})


class _Rollback(Exception):
    pass


def alternatives(*variants: Callable[[], Any]) -> list[Any]:
    """Run each variant in a savepoint that is rolled back; return what each returned."""
    results: list[Any] = []
    for variant in variants:
        box: list[Any] = []
        try:
            with transaction.atomic():
                box.append(variant())
                raise _Rollback
        except _Rollback:
            pass
        results.append(box[0])
    return results


def reading(viewer: Player, match_id: str, *, old_etag: str | None = None) -> dict[str, Any]:
    """Everything ``viewer`` can read about the match without changing it."""
    detail = viewer.get(f"/matches/{match_id}")
    assert detail.status_code == 200, detail.content
    out: dict[str, Any] = {
        "match": detail.content.decode(),
        "etag": detail["ETag"],
        "vary": detail.get("Vary"),
    }
    for query in ("", "?after=2"):
        events = viewer.get(f"/matches/{match_id}/events{query}")
        out[f"events{query}"] = (events.content.decode(), events.get("ETag"))
    chat = viewer.get(f"/matches/{match_id}/chat")
    out["chat"] = (chat.status_code, chat.content.decode())
    for query in ("", "?mine=true", "?awaiting_me=true", "?status=active", "?game=gops"):
        listed = viewer.get(f"/matches{query}")
        assert listed.status_code == 200, listed.content
        out[f"list{query}"] = (listed.content.decode(), listed["ETag"])
    if old_etag is not None:
        conditional = viewer.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=old_etag)
        out["if_none_match"] = (conditional.status_code, conditional.content.decode())
    return out


def problem(response: Any) -> tuple[int, str, str]:
    """An answer as status, content type and raw body, for byte-for-byte comparison."""
    return response.status_code, response["Content-Type"], response.content.decode()


def keys_in(value: Any) -> set[str]:
    """Every dict key anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            found |= keys_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= keys_in(item)
    return found


def state_of(match_id: str) -> dict[str, Any]:
    state = Match.objects.values_list("state", flat=True).get(pk=match_id)
    assert isinstance(state, dict)
    return state


def state_set(match_id: str, state: dict[str, Any]) -> None:
    Match.objects.filter(pk=match_id).update(state=state)


def shuffled_state(match_id: str, seat: int | None, salt: int) -> dict[str, Any]:
    """The match state with everything hidden from ``seat`` redrawn by the engine."""
    match = Match.objects.only("game").get(pk=match_id)
    engine = get_engine(match.game)
    assert engine is not None
    rng = DealRng(bytes([salt % 256]) * 32, f"leak-test-{salt}", [])
    return engine.shuffle_hidden(state_of(match_id), seat, rng)
