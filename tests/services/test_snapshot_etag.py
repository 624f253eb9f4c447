"""The detail ETag decided from the snapshot's raw columns (a 304 builds no model instance)
is the ETag of the built snapshot, for every viewer and every moment of a step."""

from __future__ import annotations

import pytest

from games.services.reads import match_snapshot_read
from tests.players import Player, make_player, start_match

pytestmark = pytest.mark.django_db


def _agree(match_id: str, viewers: list[Player]) -> set[str]:
    tags = set()
    for viewer in viewers:
        read = match_snapshot_read(match_id=match_id, user=viewer.user)
        raw = read.etag()
        assert raw == read.snapshot().etag, viewer.name
        assert raw == viewer.get(f"/matches/{match_id}")["ETag"]
        answer = viewer.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=raw)
        assert answer.status_code == 304 and answer["ETag"] == raw
        tags.add(raw)
    return tags


def test_raw_and_built_etags_agree(alice: Player, bob: Player) -> None:
    spectator = make_player()
    match_id = start_match("gops", [alice, bob], options={"num_cards": 4})
    viewers = [alice, bob, spectator]
    before = _agree(match_id, viewers)
    assert len(before) == 3  # per viewer
    assert alice.move(match_id, 1, {"card": 2}).status_code == 202
    submitted = _agree(match_id, viewers)
    assert bob.move(match_id, 1, {"card": 3}).status_code == 202
    resolved = _agree(match_id, viewers)
    assert len(before | submitted | resolved) == 9
    stale = next(iter(before))
    assert alice.get(f"/matches/{match_id}", HTTP_IF_NONE_MATCH=stale).status_code == 200
