"""Memory bots. ``greedy`` remembers what its seat has seen and takes the pairs it knows.

A bot is asked only when its seat must flip, so ``greedy`` records, at every call, what the view
shows then: the cards face up now (the last miss still showing, its own first flip) and, under
``history: full``, every flip in the history that names its card. ``memory`` is
``{"known": {"<position>": "<card code>"}}``; positions that are taken are dropped.

``forgetfulness`` f (0 … 1): at every call, before reading the view, each remembered card is
forgotten with probability f (drawn from the bot's own rng), so on average the fraction f of
what it remembered is lost. Cards the view shows at that call are (re)learned, so with
``history: full`` the view itself is a perfect memory and forgetting changes nothing there.

Its own second flip of a miss is never shown back to it under ``table_only`` (the turn passes
and the card turns face down at the next player's first flip), so it cannot remember it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from cardgames.bots.base import BaseBot, BotContext, Decision, Observation

GREEDY_OPTIONS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "forgetfulness": {
            "description": (
                "The fraction of remembered cards forgotten between its moves (0: perfect "
                "memory, 1: only what the view shows now)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0,
        },
    },
}


def remember(
    view: Mapping[str, Any], memory: Mapping[str, Any], forgetfulness: float, rng: random.Random
) -> dict[str, str]:
    """What the bot knows after this call: old knowledge (minus what it forgets and what is
    taken) plus what the view shows now. Keys are positions as strings (JSON)."""
    grid: list[Any] = list(view.get("grid", []))
    old: Mapping[str, Any] = memory.get("known", {}) if isinstance(memory, Mapping) else {}
    known: dict[str, str] = {}
    for key in sorted(old, key=_as_int):
        position = _as_int(key)
        if not 0 <= position < len(grid) or grid[position] == "taken":
            continue
        if forgetfulness > 0 and rng.random() < forgetfulness:
            continue
        known[str(position)] = str(old[key])
    for entry in view.get("history", []):
        position = entry.get("position")
        card = entry.get("card")
        if (
            isinstance(position, int)
            and card
            and 0 <= position < len(grid)
            and grid[position] != "taken"
        ):
            known[str(position)] = str(card)
    for position, cell in enumerate(grid):
        if cell is not None and cell != "taken":
            known[str(position)] = cell
    return known


def _as_int(key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        return -1


class GreedyMemoryBot(BaseBot):
    """Takes a pair it knows of; else flips an unknown card and matches it if it can."""

    name = "greedy"
    options_schema = GREEDY_OPTIONS

    def choose(self, ctx: BotContext) -> Decision:
        view, rng = ctx.view, ctx.rng
        forgetfulness = float(ctx.options.get("forgetfulness", 0) or 0)
        known = remember(view, ctx.memory, forgetfulness, rng)
        legal = sorted(move["flip"] for move in ctx.legal_moves)
        flipped: list[int] = list(view.get("flipped", []))
        candidates = {
            position: known[str(position)] for position in legal if str(position) in known
        }
        unknown = [position for position in legal if str(position) not in known]
        choice: int | None = None
        if flipped:
            first = known.get(str(flipped[0]))
            if first is not None:
                matches = [p for p, card in candidates.items() if card[0] == first[0]]
                if matches:
                    choice = rng.choice(matches)
        else:
            by_rank: dict[str, list[int]] = {}
            for position, card in candidates.items():
                by_rank.setdefault(card[0], []).append(position)
            pairs = [positions for positions in by_rank.values() if len(positions) >= 2]
            if pairs:
                choice = min(rng.choice(pairs))
        if choice is None:
            choice = rng.choice(unknown or legal)
        return Decision(move={"flip": choice}, memory={"known": known})


# --- the expert: perfect memory and the optimal choice between the three kinds of turn --------
#
# With perfect memory on both sides (every flip shown to all), a position of the game is
# (m, k): m pairs of which no card has been seen, k cards seen whose partner has not been
# (singles; their partners are among the unseen cards). A turn is one of three kinds:
#   2-move: flip an unseen card; if it matches a single take the pair (and go again), else
#           flip a second unseen card (it may match the first, match another single — a pair
#           handed to the next player — or be new);
#   1-move: flip an unseen card; if it matches a single take the pair, else flip a single
#           (a known non-match: it reveals nothing more);
#   0-move: flip two singles (a deliberate non-match that reveals nothing: a pass).
# ``turn_values`` computes, by dynamic programming, the expected pair margin of the seat to
# move under the best choice at every (m, k); two passes in a row are not allowed, so the game
# always ends (after a pass the next seat must flip an unseen card).


@cache
def position_value(m: int, k: int, may_pass: bool, again: bool) -> float:
    """The expected number of pairs the seat to move takes minus those the other takes, from
    (m, k) with perfect memory on both sides and best play (``again``: a pair earns another
    turn)."""
    return max(turn_values(m, k, may_pass, again).values())


def _after_pair(value: float, again: bool) -> float:
    """The mover's value of taking a pair and then being at a position of ``value`` (to the
    seat moving there: the mover again, or the next seat)."""
    return 1 + value if again else 1 - value


@cache
def turn_values(m: int, k: int, may_pass: bool, again: bool) -> dict[str, float]:
    """The value to the seat to move of each kind of turn it may take at (m, k)."""
    if m == 0:
        return {"2": float(k)}  # every unseen card matches a single
    unseen = 2 * m + k
    matched = 0.0
    if k:
        matched = k / unseen * _after_pair(position_value(m, k - 1, True, again), again)
    fresh = 2 * m / unseen
    values: dict[str, float] = {}
    second = second_flip_values(m, k, again)
    for kind, value in second.items():
        values[kind] = matched + fresh * value
    if may_pass and k >= 2:
        values["0"] = -position_value(m, k, False, again)
    return values


@cache
def second_flip_values(m: int, k: int, again: bool) -> dict[str, float]:
    """After a first flip of an unseen card that matches no single (at (m, k) before it), the
    value of flipping a single second (``1``, when there is one) or another unseen card
    (``2``)."""
    values: dict[str, float] = {}
    if k:
        values["1"] = -position_value(m - 1, k + 1, True, again)
    rest = 2 * m + k - 1
    two = 1 / rest * _after_pair(position_value(m - 1, k, True, again), again)
    if k:  # it matches another single: a pair the next seat takes at once
        two += k / rest * -_after_pair(position_value(m - 1, k, True, again), again)
    if m >= 2:
        two += (2 * m - 2) / rest * -position_value(m - 2, k + 2, True, again)
    values["2"] = two
    return values


class ExpertMemoryBot(BaseBot):
    """Perfect memory (it watches every flip through ``observe``, so under ``history:
    table_only`` it still knows its own second flips and everyone else's), and the turn of the
    kind that ``turn_values`` finds best: a known pair first; else a 2-move, a 1-move (a
    deliberate known non-match as the second flip) or a pass (two known non-matching cards),
    whichever is worth most with both seats remembering everything. When flips are shown to
    the flipper only (it notices: another seat's flip comes without its card) nothing it flips
    informs the others, so it always flips a second unseen card.

    ``memory``: ``known`` (as ``greedy``'s), ``private`` (flips are the flipper's only),
    ``again`` (a pair earns another turn, as observed; assumed until seen otherwise),
    ``passed`` (the last turn was a pass: two cards known before), ``first_known`` (this
    turn's first flip was a known card)."""

    name = "expert"

    def observe(self, obs: Observation) -> dict[str, Any]:
        memory = dict(obs.memory)
        known = remember(obs.view, memory, 0, random.Random(0))
        before = dict(memory.get("known", {}))
        for event in obs.events:
            position, card, seat = event.get("position"), event.get("card"), event.get("seat")
            if not isinstance(position, int):
                continue
            was_known = str(position) in before
            if card:
                if event.get("result") != "pair":
                    known[str(position)] = str(card)
            elif seat != obs.seat:
                memory["private"] = True
            if event.get("flip") == 1:
                memory["first_known"] = was_known
            else:
                memory["passed"] = bool(
                    event.get("result") == "miss" and memory.get("first_known") and was_known
                )
            if event.get("result") == "pair" and not event.get("over"):
                memory["again"] = event.get("next") == seat
        memory["known"] = {
            key: card for key, card in known.items() if obs.view["grid"][int(key)] != "taken"
        }
        return memory

    def choose(self, ctx: BotContext) -> Decision:
        view, rng = ctx.view, ctx.rng
        memory = dict(ctx.memory)
        known = remember(view, memory, 0, rng)
        memory["known"] = known
        legal = sorted(move["flip"] for move in ctx.legal_moves)
        flipped: list[int] = list(view.get("flipped", []))
        again = bool(memory.get("again", True))
        private = bool(memory.get("private", False))
        mine = {p: known[str(p)] for p in legal if str(p) in known}
        unseen = [p for p in legal if str(p) not in known]
        by_rank: dict[str, list[int]] = {}
        for position, card in mine.items():
            by_rank.setdefault(card[0], []).append(position)
        singles = [positions[0] for positions in by_rank.values() if len(positions) == 1]
        if flipped:
            first = known.get(str(flipped[0]))
            matches = by_rank.get(first[0], []) if first else []
            if matches:
                choice = min(matches)
            elif memory.get("first_known") and first:
                others = [p for p in singles if mine[p][0] != first[0]]
                choice = rng.choice(others or unseen or legal)
            else:
                # A fresh first card: before it there were k singles and m unseen pairs.
                k = len(singles)
                m = max((len(unseen) + 1 - k) // 2, 1)
                kind = "2"
                if not private and singles and unseen:
                    values = second_flip_values(m, k, again)
                    kind = "1" if values.get("1", -1e9) > values["2"] + 1e-9 else "2"
                choice = rng.choice(singles if kind == "1" or not unseen else unseen)
            return Decision(move={"flip": choice}, memory=memory)
        pairs = [positions for positions in by_rank.values() if len(positions) >= 2]
        if pairs:
            choice = min(min(positions) for positions in pairs)
            memory["first_known"] = True
            return Decision(move={"flip": choice}, memory=memory)
        k = len(singles)
        m = (len(unseen) - k) // 2
        kind = "2"
        if not private and unseen and m > 0:
            values = turn_values(m, k, not memory.get("passed", False), again)
            best = max(values.values())
            if values.get("0", -1e9) > best - 1e-9 and values["0"] > values["2"] + 1e-9:
                kind = "0"
        if kind == "0" or not unseen:
            choice = rng.choice(singles or legal)
            memory["first_known"] = True
        else:
            choice = rng.choice(unseen)
            memory["first_known"] = False
        return Decision(move={"flip": choice}, memory=memory)
