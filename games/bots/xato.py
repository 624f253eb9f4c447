"""Xato bots.

``random`` makes a uniformly random legal move (for the life template: ``choose`` random
distinct cards of ``from``).

``greedy`` plays like a player with a notebook, from its seat's views only. Its ``memory``
(JSON, stored in the seat row) holds what it saw:

* ``owners`` — card → the seats that may hold it (one seat when it watched the pick; under
  ``history: table_only`` a card that left the pool between two of its own picks may be any
  other seat's);
* ``gone`` — cards it saw on the table or saw called (calling them again is a blank shot);
* ``life`` — its own life cards (it chose them; the server never shows them again);
* ``cursor`` — how many public history entries it has read (``full``), ``pool`` — the draft
  pool at its last move (``table_only``), ``deal``.

Under ``full`` it reads the history entries it has not read yet; under ``table_only`` it can
only note what the table shows at each of its moves. On the hunt it calls a card it believes
the intended target holds (hand or life), never its own cards nor a known blank shot; it claims
exactly its own remembered life cards under ``strict_memory``; it always sacrifices when it may.

Option ``forgetfulness`` (0 … 1, default 0): each fact it would note is dropped with that
probability (drawn from the bot's own rng), so that it is beatable.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.bots.base import BaseBot, BotContext, Decision
from games.engine.protocol import Move
from games.engine.xato import pack

FORGETFUL_OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "forgetfulness": {
            "description": "Fraction of what it sees that it forgets (0 = perfect memory).",
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0,
        }
    },
    "additionalProperties": False,
}


def _expand(move: Move, rng: random.Random) -> Move:
    """A concrete move from a legal entry: a life template becomes a random choice."""
    if isinstance(move.get("life"), Mapping):
        template = move["life"]
        return {"life": rng.sample(list(template["from"]), int(template["choose"]))}
    return dict(move)


class RandomXatoBot(BaseBot):
    """A uniformly random legal move; life cards chosen uniformly at random."""

    name = "random"

    def choose(self, ctx: BotContext) -> Decision:
        move = _expand(ctx.rng.choice(ctx.legal_moves), ctx.rng)
        return Decision(move=move, memory=dict(ctx.memory))


class _Notebook:
    """The greedy bot's memory while it decides; ``dump`` gives the JSON to store."""

    def __init__(self, memory: Mapping[str, Any], forget: float, rng: random.Random) -> None:
        self.forget = forget
        self.rng = rng
        self.deal: Any = memory.get("deal")
        self.cursor = int(memory.get("cursor", 0))
        self.owners: dict[str, list[int]] = {
            str(card): [int(s) for s in seats] for card, seats in memory.get("owners", {}).items()
        }
        self.gone: set[str] = {str(card) for card in memory.get("gone", [])}
        self.life: set[str] = {str(card) for card in memory.get("life", [])}
        self.pool: list[str] | None = (
            [str(card) for card in memory["pool"]] if memory.get("pool") is not None else None
        )

    def keep(self) -> bool:
        return self.forget <= 0 or self.rng.random() >= self.forget

    def note_owner(self, card: str, seats: list[int]) -> None:
        if self.keep():
            self.owners[card] = sorted(seats)

    def note_gone(self, card: str) -> None:
        self.owners.pop(card, None)
        self.life.discard(card)
        if card not in self.gone and self.keep():
            self.gone.add(card)

    def note_life(self, cards: list[str]) -> None:
        for card in cards:
            if self.keep():
                self.life.add(card)

    def new_deal(self, deal: Any) -> None:
        self.deal = deal
        self.owners = {}
        self.gone = set()
        self.life = set()
        self.pool = None

    def dump(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "cursor": self.cursor,
            "owners": {card: list(seats) for card, seats in sorted(self.owners.items())},
            "gone": sorted(self.gone),
            "life": sorted(self.life),
            "pool": list(self.pool) if self.pool is not None else None,
        }


class GreedyXatoBot(BaseBot):
    """Calls what it believes its target holds, from what its seat saw (see the module)."""

    name = "greedy"
    options_schema = FORGETFUL_OPTIONS

    def choose(self, ctx: BotContext) -> Decision:
        seat, view, legal_moves, rng = ctx.seat, ctx.view, ctx.legal_moves, ctx.rng
        forget = float(ctx.options.get("forgetfulness", 0) or 0)
        book = _Notebook(ctx.memory, forget, rng)
        _observe(book, seat, view)
        kind = view["phase"]["kind"]
        legal = {json_key(move) for move in legal_moves}
        move: Move | None = None
        if kind == "life":
            move = _expand(legal_moves[0], rng)
            book.note_life(list(move["life"]))
        elif kind == "hunt":
            move = _call(book, seat, view, rng)
        elif kind == "claim":
            card = view["pending"]["card"]
            move = {"claim": card in book.life}
            book.note_gone(card)  # after this step it lies on the table, whatever it was
        elif kind == "sacrifice":
            cards = [m["sacrifice"] for m in legal_moves if m["sacrifice"] is not None]
            move = {"sacrifice": rng.choice(cards) if cards else None}
            if move["sacrifice"] is not None:
                book.life = set()
                book.note_life([move["sacrifice"]])
        elif kind == "draft":
            move = {"take": rng.choice(legal_moves)["take"]}
            book.pool = [card for card in view.get("pool", []) if card != move["take"]]
        if move is None or (kind != "life" and json_key(move) not in legal):
            move = _expand(rng.choice(legal_moves), rng)
        return Decision(move=move, memory=book.dump())


def json_key(move: Mapping[str, Any]) -> str:
    return repr(sorted(move.items()))


def _observe(book: _Notebook, seat: int, view: Mapping[str, Any]) -> None:
    """Note what this view shows that the notebook does not hold yet."""
    deal = view.get("deal")
    if book.deal != deal:
        book.new_deal(deal)
    history: list[Mapping[str, Any]] = list(view.get("history", []))
    if view.get("history_mode") == "full":
        for entry in history[book.cursor :]:
            if entry.get("deal") == deal:
                _read_event(book, seat, entry)
        book.cursor = len(history)
    elif view["phase"]["kind"] == "draft":
        pool = list(view.get("pool", []))
        before = book.pool
        if before is None:  # first look: everything gone from the full pack
            before = list(pack(int(view["players"])))
        hand = set(view.get("hand", []))
        others = [s for s in range(int(view["players"])) if s != seat]
        for card in before:
            if card not in pool and card not in hand:
                book.note_owner(card, others)
        book.pool = pool
    # What lies on the table now, whatever the history mode.
    for card in view.get("exposed", []):
        book.note_gone(card)
    if view.get("discard_top") is not None:
        book.note_gone(view["discard_top"])


def _read_event(book: _Notebook, seat: int, entry: Mapping[str, Any]) -> None:
    kind = entry.get("kind")
    if kind == "take":
        if entry["seat"] != seat:
            book.note_owner(entry["card"], [entry["seat"]])
        for card in entry.get("discard_start") or []:
            book.note_gone(card)
    elif kind in ("call", "claim") and entry.get("outcome") is not None:
        book.note_gone(entry["card"])
    if kind in ("call", "claim", "sacrifice") and entry.get("finished"):
        for card in entry["finished"]["exposed"]:
            book.note_gone(card)


def _call(book: _Notebook, seat: int, view: Mapping[str, Any], rng: random.Random) -> Move:
    players = int(view["players"])
    codes = list(pack(players))
    target = view.get("target")
    hand = set(view.get("hand", []))
    visible = set(view.get("exposed", [])) | {view.get("discard_top")}
    out = set(view.get("finished", []))
    avoid = hand | book.life | book.gone | visible

    def open_cards(owned: list[int]) -> bool:
        return bool(owned) and not set(owned) & out and seat not in owned

    sure = [
        c for c in codes if c not in avoid and book.owners.get(c) == [target] and target is not None
    ]
    if sure:
        return {"call": rng.choice(sure)}
    maybe = [
        c
        for c in codes
        if c not in avoid and target in book.owners.get(c, []) and open_cards(book.owners[c])
    ]
    if maybe:
        best = min(len(book.owners[c]) for c in maybe)
        return {"call": rng.choice([c for c in maybe if len(book.owners[c]) == best])}
    # Nothing known about the target: an unknown card may well be the target's.
    unknown = [c for c in codes if c not in avoid and c not in book.owners]
    if unknown:
        return {"call": rng.choice(unknown)}
    # A sure miss on one's own hand card (-3) beats a blank shot (-6).
    if hand:
        return {"call": rng.choice(sorted(hand))}
    rest = [c for c in codes if c not in book.life and c not in visible]
    return {"call": rng.choice(rest or codes)}
