"""games.compiled builds model instances without ``Model.__init__`` when nothing can tell the
difference: the instances equal what Django's ``from_db`` builds, field by field, deferred
fields stay deferred, and a ``pre_init``/``post_init`` receiver (or a model with its own
``__init__``) gets Django's own path."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F
from django.db.models.signals import post_init

from accounts.models import User
from games.compiled import CompiledSelect, _plain_fields, instance, new_row
from games.models import Match, MatchEvent, Move, Seat
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
    assert built[0].match is not built[1].match  # one match per row, as select_related makes
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


def test_new_rows_equal_what_the_constructor_builds(alice: Player, bob: Player) -> None:
    """``new_row`` (the unit of work's moves and events): the same attributes, defaults and
    cached match as ``Model(**values)``, by field name or attname."""
    match = Match.objects.get(pk=start_match("gops", [alice, bob]))
    cases: list[tuple[type[Any], dict[str, Any]]] = [
        (Move, {"match": match, "step": 3, "seat": 1, "payload": {"card": 4}, "source": "bot"}),
        (Move, {"match_id": match.pk, "step": 1, "seat": 0, "payload": None, "commitment": "ab"}),
        (
            MatchEvent,
            {"match": match, "seq": 7, "type": "step_resolved", "step": 2, "data": {"a": [1]}},
        ),
    ]
    for model, values in cases:
        ours, djangos = new_row(model, dict(values)), model(**values)
        assert _state(ours) == _state(djangos), model
        assert list(ours.__dict__) == list(djangos.__dict__)
        assert ours.match is match if "match" in values else ours.match == match
        assert ours._state.adding and ours.pk is None
    defaults = new_row(MatchEvent, {"match": match, "seq": 1, "type": "x"})
    assert defaults.private == {} and defaults.private is not new_row(MatchEvent, {}).private
    with pytest.raises(TypeError, match="unexpected"):
        new_row(Move, {"match": match, "no_such_field": 1})


def test_new_rows_take_djangos_path_for_a_receiver(alice: Player, bob: Player) -> None:
    match = Match.objects.get(pk=start_match("gops", [alice, bob]))
    seen: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    post_init.connect(receiver, sender=Move)
    try:
        move = new_row(Move, {"match": match, "step": 1, "seat": 0})
    finally:
        post_init.disconnect(receiver, sender=Move)
    assert seen == [move]


def test_a_seats_player_equals_from_db(alice: Player) -> None:
    """The match lock's players (``instance``): as ``User.from_db`` builds them, the other
    fields deferred."""
    ours = instance(User, "default", ["id", "username"], [alice.user.pk, alice.user.username])
    djangos = User.from_db("default", ["id", "username"], [alice.user.pk, alice.user.username])
    assert _state(ours) == _state(djangos)
    assert ours.get_deferred_fields() == djangos.get_deferred_fields()
    assert ours.email == alice.user.email  # a deferred field, read on first use
