"""The event catalogue: every stored event type is in it, and one redaction serves every reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from games import events
from games.events import AUDITOR, CATALOGUE, Reader, event_for, json_schema


@dataclass
class Row:
    seq: int = 7
    type: str = "step_resolved"
    step: int | None = 3
    at: datetime = field(default_factory=lambda: datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    show_at: bool = True
    data: Any = field(default_factory=lambda: {"prize": 5})
    private: dict[str, Any] = field(default_factory=lambda: {"1": {"hand": [1, 2]}})
    table_only: bool = False


def test_a_seat_reads_its_own_private_part_and_nobody_elses():
    assert event_for(Row(), Reader(seat=1))["data"] == {"prize": 5, "hand": [1, 2]}
    assert event_for(Row(), Reader(seat=0))["data"] == {"prize": 5}
    assert event_for(Row(), Reader())["data"] == {"prize": 5}
    assert "private" not in event_for(Row(), Reader(seat=1))


def test_table_only_events_fade_before_the_readers_horizon():
    row = Row(table_only=True, step=3)
    assert event_for(row, Reader(seat=1, table_only_from=4))["data"] is None
    assert event_for(row, Reader(seat=1, table_only_from=3))["data"] == {"prize": 5, "hand": [1, 2]}
    assert event_for(row, Reader(table_only_from=None))["data"] == {"prize": 5}


def test_the_auditor_reads_everything_but_a_hidden_time():
    read = event_for(Row(show_at=False), AUDITOR)
    assert read == {
        "seq": 7,
        "type": "step_resolved",
        "step": 3,
        "at": None,
        "data": {"prize": 5},
        "private": {"1": {"hand": [1, 2]}},
    }
    assert event_for(Row(), AUDITOR)["at"] == "2026-01-02T03:04:05Z"


def test_every_event_type_has_a_schema_and_documentation():
    for name, event in CATALOGUE.items():
        assert event.name == name and event.doc
        schema = json_schema(event.data)
        assert schema["type"] == "object"
        if not event.game_defined:
            assert schema["additionalProperties"] is False
    assert events.MOVE_SUBMITTED.show_at is False
    assert [e.name for e in CATALOGUE.values() if e.may_be_table_only] == ["step_resolved"]


def test_payload_schemas_follow_the_typed_dicts():
    schema = json_schema(events.SeatForfeited)
    assert schema["properties"]["reason"] == {"enum": ["resigned", "timeout", "illegal_reveal"]}
    assert schema["required"] == ["reason", "seat"]
    assert json_schema(events.MatchAborted)["properties"]["seat"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}]
    }
    with pytest.raises(TypeError):
        json_schema(set[int])
