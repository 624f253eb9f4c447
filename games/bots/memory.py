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
from typing import Any

from games.bots.base import BaseBot, BotContext, Decision

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
