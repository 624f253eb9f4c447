"""games.compiled builds model instances without ``Model.__init__`` when nothing can tell the
difference: the instances equal what Django's ``from_db`` builds, field by field, deferred
fields stay deferred, and a ``pre_init``/``post_init`` receiver (or a model with its own
``__init__``) gets Django's own path."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F
from django.db.models.signals import post_init

from games.compiled import CompiledSelect, _plain_fields
from games.models import Match, Seat
from tests.players import Player, start_match

pytestmark = pytest.mark.django_db


def _state(obj: Any) -> dict[str, Any]:
    """Everything an instance holds, its ``_state`` by value."""
    fields = {k: v for k, v in obj.__dict__.items() if k != "_state"}
    return {**fields, "_state": (obj._state.adding, obj._state.db)}


def _lock_like() -> CompiledSelect[Seat]:
    return CompiledSelect(
        lambda match_id: (
            Seat.objects.select_related("match")
            .annotate(user_name=F("user__username"))
            .filter(match_id=match_id)
            .order_by("index")
        )
    )


def test_instances_equal_what_from_db_builds(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob])
    built = _lock_like().fetch(match_id)
    expected = list(
        Seat.objects.select_related("match")
        .annotate(user_name=F("user__username"))
        .filter(match_id=match_id)
        .order_by("index")
    )
    assert [_state(s) for s in built] == [_state(s) for s in expected]
    assert [_state(s.match) for s in built] == [_state(s.match) for s in expected]
    assert list(built[0].__dict__) == list(expected[0].__dict__)  # same order, too
    # A saved instance: an update, not an insert.
    seat = built[0]
    seat.client_seed = "changed"
    seat.save(update_fields=["client_seed"])
    assert Seat.objects.get(pk=seat.pk).client_seed == "changed"


def test_fields_left_out_stay_deferred(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob])
    only = CompiledSelect(lambda value: Match.objects.only("id", "step").filter(id=value))
    (match,) = only.fetch(match_id)
    (expected,) = Match.objects.only("id", "step").filter(id=match_id)
    assert match.get_deferred_fields() == expected.get_deferred_fields()
    assert "state" in match.get_deferred_fields()
    assert match.state == expected.state  # loaded on first use, as Django loads it


def test_a_post_init_receiver_gets_djangos_own_path(alice: Player, bob: Player) -> None:
    match_id = start_match("gops", [alice, bob])
    seen: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    post_init.connect(receiver, sender=Seat)
    try:
        built = _lock_like().fetch(match_id)
    finally:
        post_init.disconnect(receiver, sender=Seat)
    assert seen == built and len(built) == 2


def test_a_model_with_its_own_init_is_not_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _plain_fields(Seat) and _plain_fields(Match)

    def own_init(self: Any, *args: Any, **kwargs: Any) -> None:
        super(Seat, self).__init__(*args, **kwargs)

    monkeypatch.setattr(Seat, "__init__", own_init)
    assert not _plain_fields(Seat)
