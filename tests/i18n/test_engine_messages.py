"""Every reason an engine gives, in German: each message id of the one registry
(``cardgames.engines.messages``) has a German translation with the same parameters, the engines
raise no id outside it, and a walk of every game reaches every illegal-move reason, whose
German text (written as the problem writer writes it) is not the English one."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation
from django.utils.translation import gettext
from jsonschema import Draft202012Validator

from cardgames.bots.base import concrete
from cardgames.engines import old_men_of_the_forest as omf
from cardgames.engines import xato
from cardgames.engines.messages import MESSAGES, Reason
from cardgames.engines.options import check_options
from cardgames.engines.protocol import Engine, IllegalMove, InvalidOptions, Move, State
from cardgames.engines.rng import DealRng
from core.text import said
from games.catalog import GAMES

ENGINE_SOURCES = Path(__file__).resolve().parents[2] / "cardgames" / "engines"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
#: An id as the engines write it: ``IllegalMove("id", …)`` or ``Reason("id", …)``; an f-string
#: id (``f"omf_{phase}_shape"``) is matched as a pattern.
RAISED = re.compile(r'(?:IllegalMove|Reason)\(\s*(f?)"([a-z_{}.]+)"')
OPTION_IDS = {
    "option_unknown",
    "options_not_object",
    "option_type",
    "option_enum",
    "option_minimum",
    "option_maximum",
    "seats_range",
    "hdg_two_player_variant",
    "omf_five_players",
}
#: A walk's playouts per setup: enough to pass every phase and reason (the test says which
#: it missed).
PLAYOUTS = 1


def test_every_message_has_a_german_translation_with_the_same_parameters() -> None:
    with translation.override("de"):
        for message_id, template in MESSAGES.items():
            german = gettext(template)
            assert german != template, f"{message_id} has no German translation"
            assert sorted(PLACEHOLDER.findall(german)) == sorted(PLACEHOLDER.findall(template))


def test_the_engines_raise_only_registered_ids() -> None:
    raised = set()
    for source in ENGINE_SOURCES.glob("*.py"):
        for fstring, name in RAISED.findall(source.read_text(encoding="utf-8")):
            parts = re.split(r"\{[^}]*\}", name) if fstring else [name]
            pattern = r"\w+".join(map(re.escape, parts))
            found = {i for i in MESSAGES if re.fullmatch(pattern, i)}
            assert found, f"{source.name} raises {name!r}, which is not in MESSAGES"
            raised |= found
    assert raised == set(MESSAGES), f"ids never raised: {set(MESSAGES) - raised}"


def _own(state: State, key: str, seat: int) -> list[Any]:
    """The seat's cards under ``key`` (hands, collections), or none."""
    held = state.get(key)
    return list(held[seat]) if isinstance(held, list) and seat < len(held) else []


def _probes(state: State, seat: int, keys: set[str]) -> Iterator[Move]:
    """Moves of every wrong shape and value the engines refuse, for the keys of the seat's
    legal moves (and one wrong key)."""
    yield {}
    yield {key: 7 for key in keys}
    yield {key: True for key in keys}
    numbers = ("card", "flip") if keys & {"card", "flip"} else ()
    for key in numbers:
        for n in range(-1, 40):
            yield {key: n}
    codes = (*omf.CARDS, *sorted(xato.ALL_CODES))
    for key in keys & {"play", "take", "call", "sacrifice"}:
        for code in codes:
            yield {key: code}
    if "life" in keys:
        mine = _own(state, "hands", seat)
        k = state["options"]["life_cards"]
        yield {"life": mine[: k + 1]}
        yield {"life": mine[:1] * k}
        yield {"life": sorted(xato.ALL_CODES)[:k]}
    if "claim" in keys:
        yield {"claim": "yes"}
    if "cash_in" in keys:
        for ident in omf.ORANGUTAN_IDS:
            yield {"cash_in": {"orangutan": ident}}
            yield {"cash_in": {"orangutan": ident, "give": "R1"}}
            yield {"cash_in": {"orangutan": ident, "give": ["R1", "R1"]}}
            yield {"cash_in": {"orangutan": ident, "give": list(omf.CARDS)}}
            yield {"cash_in": {"orangutan": ident, "give": _own(state, "collections", seat)[:1]}}
        yield {"cash_in": {"orangutan": "nobody"}}
        yield {"cash_in": {"orangutan": omf.ORANGUTAN_IDS[0], "plus": 1}}


def _refusals(engine: Engine, state: State) -> Iterator[Reason]:
    acting = engine.to_act(state)
    seats = acting.seats if acting is not None else ()
    for seat in range(state["players"] + 1):
        keys = {key for move in engine.legal_moves(state, seat) for key in move}
        probes = _probes(state, seat, keys) if seat in seats else iter([{}])
        for move in probes:
            try:
                engine.check_move(state, seat, move)
            except IllegalMove as refused:
                yield refused.reason
    steps: list[dict[int, Move]] = [{}, {seat: {} for seat in seats} | {state["players"]: {}}]
    for moves in steps:
        try:
            engine.checked_step(state, moves)  # type: ignore[attr-defined]
        except IllegalMove as refused:
            yield refused.reason


def _setups(slug: str) -> list[tuple[int, dict[str, Any]]]:
    engine = GAMES[slug].engine
    counts = range(engine.min_players, engine.max_players + 1)
    # The smallest grid: a random game of Memory is long.
    options: dict[str, Any] = {"pairs": 6} if slug == "memory" else {}
    special = {
        "hols-der-geier": [(2, {"two_player_variant": True})],
        "old-men-of-the-forest": [(5, {"allow_five": True})],
    }
    if slug == "old-men-of-the-forest":
        counts = range(engine.min_players, 5)
    if slug == "xato":  # its games are the longest: the claim step's variant only
        return [(3, {"strict_memory": True}), (4, {"strict_memory": True})]
    return [(players, options) for players in counts] + special.get(slug, [])


def _walk(slug: str) -> dict[str, Reason]:
    """Play each setup's random games, asking at every state for every refusal."""
    engine = GAMES[slug].engine
    hit: dict[str, Reason] = {}
    for number, (players, options) in enumerate(_setups(slug) * PLAYOUTS):
        chooser = random.Random(number)
        filled = engine.validate_options(options, players)
        seed = random.Random(number).randbytes(32)
        rng = DealRng(seed, f"00000000-0000-0000-0000-{number:012d}", [None] * players)
        state = engine.initial_state(players, filled, rng)
        while True:
            for reason in _refusals(engine, state):
                hit.setdefault(reason.message_id, reason)
            acting = engine.to_act(state)
            if acting is None:
                break
            moves = {
                seat: concrete(chooser.choice(engine.legal_moves(state, seat)), chooser)
                for seat in acting.seats
            }
            state = engine.apply(state, moves).state
        try:
            engine.timeout_move(state, 0)
        except IllegalMove as refused:
            hit.setdefault(refused.reason.message_id, refused.reason)
    return hit


def _options_refused(slug: str) -> Iterator[Reason]:
    engine = GAMES[slug].engine
    properties = engine.options_schema["properties"]
    wrong: list[Any] = [{"nonsense": 1}, ["not", "an", "object"]]
    for name, prop in properties.items():
        wrong += [{name: "not a value"}, {name: -(10**6)}, {name: 10**6}]
        if "enum" in prop:
            wrong.append({name: 12})
        if "boolean" in str(prop.get("type")):
            wrong.append({name: True})
    for options in wrong:
        for players in (engine.min_players, engine.max_players + 1, 5, 3):
            try:
                engine.validate_options(options, players)
            except InvalidOptions as refused:
                yield from (
                    m for ms in refused.errors.values() for m in ms if isinstance(m, Reason)
                )


@pytest.fixture(scope="module")
def walked() -> dict[str, dict[str, Reason]]:
    return {slug: _walk(slug) for slug in sorted(GAMES)}


def test_a_walk_of_every_game_reaches_every_illegal_move_reason(
    walked: dict[str, dict[str, Reason]],
) -> None:
    reached = {message_id for hit in walked.values() for message_id in hit}
    assert reached == set(MESSAGES) - OPTION_IDS


def test_every_refused_option_has_its_id() -> None:
    reached = {reason.message_id for slug in GAMES for reason in _options_refused(slug)}
    # Every game's schema says ``"type": "object"``; a schema without it refuses a non-object.
    _, errors = check_options(Draft202012Validator({}), {"properties": {}}, [])  # type: ignore[arg-type]
    reached |= {m.message_id for m in errors["options"] if isinstance(m, Reason)}
    assert reached == OPTION_IDS


def test_every_reason_reached_reads_in_german(walked: dict[str, dict[str, Reason]]) -> None:
    reasons = [reason for hit in walked.values() for reason in hit.values()]
    reasons += [reason for slug in GAMES for reason in _options_refused(slug)]
    for reason in reasons:
        with translation.override("de"):
            german = said(reason)
            expected = gettext(reason.template) % reason.params
        with translation.override("en"):
            assert said(reason) == str(reason)
        assert german == expected != str(reason), reason.message_id
