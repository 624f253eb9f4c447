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
from collections.abc import Mapping, Sequence
from typing import Any

from cardgames.bots.base import BaseBot, BotContext, Decision, Observation
from cardgames.bots.xato_endgame import Endgame, OutOfBudget, SeatCounts
from cardgames.engines.protocol import Move
from cardgames.engines.xato import pack

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


# --- expert --------------------------------------------------------------------------------------

#: Points per outcome: (ordinary, finishing), as the engine scores them.
_HIT, _KILL, _MISS, _CRIT, _SUICIDE, _BLANK = 5, (10, 20), -3, (3, 6), (-20, -40), -6

EXPERT_OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "iterations": {
            "description": (
                "Playouts per decision on the hunt and on a sacrifice, shared among the "
                "candidate moves (the work bound): each samples the hidden life cards from "
                "what the seat believes and plays the deal out."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 2000,
            "default": 96,
        },
        "endgame_nodes": {
            "description": (
                "Positions the exact end-of-deal search may visit (the work bound); once every "
                "remaining card's owner is known and the rest of the deal fits, it decides "
                "calls and sacrifices by the exact chance of winning."
            ),
            "type": "integer",
            "minimum": 0,
            "maximum": 200000,
            "default": 6000,
        },
    },
    "additionalProperties": False,
}


class _Belief:
    """What the expert's seat knows, rebuilt from its memory: who took each card (``owner``,
    from the draft it watched), the cards on the table (``gone``), the caller whose turn a
    sacrifice step interrupts (``caller``) and the deal it belongs to."""

    def __init__(self, memory: Mapping[str, Any]) -> None:
        self.deal: Any = memory.get("deal")
        self.owner: dict[str, int] = {str(c): int(s) for c, s in memory.get("owner", {}).items()}
        self.gone: set[str] = {str(card) for card in memory.get("gone", [])}
        self.caller: int | None = memory.get("caller")
        self.sacrificed: set[int] = {int(s) for s in memory.get("sacrificed", [])}

    def reset(self, deal: Any) -> None:
        self.deal, self.owner, self.gone, self.caller = deal, {}, set(), None
        self.sacrificed = set()

    def read(self, event: Mapping[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "take":
            self.owner[str(event["card"])] = int(event["seat"])
            for card in event.get("discard_start") or []:
                self.gone.add(card)
        elif kind in ("call", "claim"):
            self.caller = int(event["seat"])
            if event.get("outcome") is not None:
                self.gone.add(str(event["card"]))
        elif kind == "sacrifice" and event.get("sacrificed"):
            self.sacrificed.add(int(event["seat"]))
        if kind in ("call", "claim", "sacrifice") and event.get("finished"):
            self.gone.update(event["finished"]["exposed"])

    def see_table(self, view: Mapping[str, Any]) -> None:
        self.gone.update(view.get("exposed", []))
        if view.get("discard_top") is not None:
            self.gone.add(view["discard_top"])

    def dump(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "owner": dict(sorted(self.owner.items())),
            "gone": sorted(self.gone),
            "caller": self.caller,
            "sacrificed": sorted(self.sacrificed),
        }


class _XatoSim:
    """One determinized hunt, fast: every seat's hand and life cards known, every seat calling
    like a well-informed greedy player (a random card of its target, else of another active
    player, else its own hand card) and always sacrificing when it may."""

    def __init__(
        self,
        players: int,
        hands: list[set[str]],
        life: list[set[str]],
        status: list[str],
        calls: list[int],
        scores: list[int],
        total_calls: int,
        max_calls: int,
        starting_hand: int,
        sacrificed: list[bool],
        direction: int,
        rng: random.Random,
    ) -> None:
        self.n = players
        self.hands, self.life, self.status = hands, life, status
        self.calls, self.scores = calls, scores
        self.total_calls, self.max_calls = total_calls, max_calls
        self.starting_hand, self.sacrificed = starting_hand, sacrificed
        self.direction, self.rng = direction, rng
        self.over = False

    def target(self, caller: int) -> int:
        right = [(caller - k) % self.n for k in range(1, self.n)]
        candidates = [s for s in right if self.status[s] != "out"]
        return candidates[self.calls[caller] % len(candidates)]

    def next_turn(self, seat: int) -> int:
        for k in range(1, self.n + 1):
            other = (seat + self.direction * k) % self.n
            if self.status[other] == "active":
                return other
        return seat

    def holdings(self, seat: int) -> list[str]:
        return sorted(self.hands[seat] | self.life[seat])

    def policy_call(self, caller: int) -> str:
        target = self.target(caller)
        cards = self.holdings(target)
        if not cards:
            others = [s for s in range(self.n) if s != caller and self.status[s] != "out"]
            cards = [c for s in others for c in self.holdings(s)]
        if not cards:
            cards = sorted(self.hands[caller]) or sorted(self.life[caller])
        return self.rng.choice(cards)

    def call(self, caller: int, card: str) -> int | None:
        """Resolve ``caller``'s call of ``card``; the seat now deciding on a sacrifice."""
        target = self.target(caller)
        self.calls[caller] += 1
        self.total_calls += 1
        holder = None
        for seat in range(self.n):
            if card in self.hands[seat]:
                self.hands[seat].discard(card)
                self.scores[caller] += _HIT if seat == target else _MISS
                holder = -1
                break
            if card in self.life[seat]:
                self.life[seat].discard(card)
                holder = seat
                break
        if holder is None:
            self.scores[caller] += _BLANK
        deciding = None
        if holder is not None and holder >= 0:
            finishing = not self.life[holder]
            table = _SUICIDE if holder == caller else _KILL if holder == target else _CRIT
            self.scores[caller] += table[1 if finishing else 0]
            if finishing:
                deciding = holder
        if self.total_calls >= self.max_calls:
            self.over = True
            return None
        if deciding is not None:
            if self.may_sacrifice(deciding):
                self.status[deciding] = "deciding"
                return deciding
            self.finish(deciding)
        self.check_end()
        return None

    def may_sacrifice(self, seat: int) -> bool:
        return not self.sacrificed[seat] and 2 * len(self.hands[seat]) > self.starting_hand

    def finish(self, seat: int) -> None:
        self.hands[seat] = set()
        self.status[seat] = "out"

    def sacrifice(self, seat: int, card: str | None) -> None:
        self.sacrificed[seat] = True
        if card is None:
            self.finish(seat)
        else:
            self.hands[seat].discard(card)
            self.life[seat] = {card}
            self.status[seat] = "active"
        self.check_end()

    def check_end(self) -> None:
        no_cards = not any(self.hands) and not any(self.life)
        if no_cards or sum(1 for s in self.status if s != "out") < 2:
            self.over = True

    def run(self, caller: int) -> list[int]:
        """Play on from the turn after ``caller``'s; the final scores."""
        seat = caller
        while not self.over:
            seat = self.next_turn(seat)
            deciding = self.call(seat, self.policy_call(seat))
            if deciding is not None:
                hand = sorted(self.hands[deciding])
                self.sacrifice(deciding, self.rng.choice(hand))
        return self.scores


def _xato_utility(scores: Sequence[int], seat: int) -> float:
    best_other = max(score for s, score in enumerate(scores) if s != seat)
    mine = scores[seat]
    win = 1.0 if mine > best_other else 0.5 if mine == best_other else 0.0
    return 30.0 * win + (mine - best_other)


#: The exact search is tried only with at most this many cards left in hands and life areas
#: (beyond, it rarely fits a budget of a few thousand positions).
_ENDGAME_CARDS = 18


class ExpertXatoBot(BaseBot):
    """Belief tracking through ``observe`` and determinized playouts (see the module)."""

    name = "expert"
    options_schema = EXPERT_OPTIONS
    #: Calls searched: those worth now at least the best one's value less this many points.
    call_slack = 2.0

    def observe(self, obs: Observation) -> dict[str, Any]:
        belief = _Belief(obs.memory)
        deal = obs.view.get("deal")
        for event in obs.events:
            if event.get("deal") not in (None, belief.deal):
                belief.reset(event.get("deal"))
            belief.read(event)
        if belief.deal != deal:
            belief.reset(deal)
        belief.see_table(obs.view)
        return belief.dump()

    def choose(self, ctx: BotContext) -> Decision:
        view, seat, rng = ctx.view, ctx.seat, ctx.rng
        belief = _Belief(ctx.memory)
        if belief.deal != view.get("deal"):
            belief.reset(view.get("deal"))
        belief.see_table(view)
        kind = view["phase"]["kind"]
        move: Move
        if kind == "draft":
            move = {"take": rng.choice(ctx.legal_moves)["take"]}
        elif kind == "life":
            move = _expand(ctx.legal_moves[0], rng)
        elif kind == "claim":
            move = {"claim": view["pending"]["card"] in self._own_life(belief, seat, view)}
        elif kind == "sacrifice":
            move = self._sacrifice(ctx, belief)
        else:
            move = self._call(ctx, belief)
        return Decision(move=move, memory=belief.dump())

    @staticmethod
    def _own_life(belief: _Belief, seat: int, view: Mapping[str, Any]) -> set[str]:
        """The seat's own life cards: what it took and neither holds in hand nor saw go."""
        hand = set(view.get("hand", []))
        return {c for c, s in belief.owner.items() if s == seat and c not in hand} - belief.gone

    def _determinize(
        self, belief: _Belief, seat: int, view: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[set[str]], list[set[str]]]:
        """One guess at every hidden card: each other seat's remaining cards (what it took and
        was not seen to lose; unknown cards dealt at random to fill the counts), of which its
        life cards are a uniform choice, as the counts say."""
        n = int(view["players"])
        hand_count, life_count = list(view["hand_count"]), list(view["life_count"])
        mine = set(view.get("hand", []))
        own_life = self._own_life(belief, seat, view)
        held: list[list[str]] = [[] for _ in range(n)]
        for card, owner in belief.owner.items():
            if owner != seat and card not in belief.gone:
                held[owner].append(card)
        placed = mine | own_life | belief.gone | set(belief.owner)
        unknown = [c for c in pack(n) if c not in placed]
        rng.shuffle(unknown)
        hands: list[set[str]] = []
        lifes: list[set[str]] = []
        for s in range(n):
            if s == seat:
                life = set(sorted(own_life)[: life_count[s]])
                while len(life) < life_count[s] and unknown:
                    life.add(unknown.pop())
                hands.append(set(mine))
                lifes.append(life)
                continue
            cards = sorted(held[s])[: hand_count[s] + life_count[s]]
            while len(cards) < hand_count[s] + life_count[s] and unknown:
                cards.append(unknown.pop())
            rng.shuffle(cards)
            lifes.append(set(cards[: life_count[s]]))
            hands.append(set(cards[life_count[s] :]))
        return hands, lifes

    def _sim(
        self, view: Mapping[str, Any], hands: list[set[str]], lifes: list[set[str]], seed: float
    ) -> _XatoSim:
        n = int(view["players"])
        status = ["out" if s in view["finished"] else "active" for s in range(n)]
        if view["phase"]["kind"] == "sacrifice":
            status[int(view["phase"]["seat"])] = "deciding"
        # Whether a seat has sacrificed is not shown; a seat that may not is assumed to have.
        sacrificed = [False] * n
        return _XatoSim(
            n,
            hands,
            lifes,
            status,
            list(view["calls_made"]),
            list(view["scores"]),
            int(view["total_calls"]),
            int(view["max_calls"]),
            int(view["starting_hand"]),
            sacrificed,
            1 if view.get("turn_direction", "clockwise") == "clockwise" else -1,
            random.Random(seed),
        )

    def _iterations(self, ctx: BotContext) -> int:
        default = EXPERT_OPTIONS["properties"]["iterations"]["default"]
        return max(1, int(ctx.options.get("iterations", default)))

    def _endgame(
        self, ctx: BotContext, belief: _Belief, known: Mapping[int, Sequence[str]]
    ) -> tuple[Endgame, tuple[SeatCounts, ...], tuple[int, ...]] | None:
        """The exact search's start, when it applies: every other active seat's remaining
        cards known by owner, and the budget above zero."""
        view, seat = ctx.view, ctx.seat
        budget = int(ctx.options.get("endgame_nodes", 0) or 0)
        if budget <= 0:
            return None
        n = int(view["players"])
        hand_count, life_count = view["hand_count"], view["life_count"]
        if sum(int(h) for h in hand_count) + sum(int(x) for x in life_count) > _ENDGAME_CARDS:
            return None  # too far from the end to fit the budget: not tried
        finished = set(view["finished"])
        for s in range(n):
            counted = int(hand_count[s]) + int(life_count[s])
            if s != seat and s not in finished and len(known.get(s, ())) != counted:
                return None
        if int(view.get("deal", 1)) != int(view.get("deals", 1)):
            return None  # scores carry over into another deal: not searched
        seats = tuple(
            (
                int(hand_count[s]),
                int(life_count[s]),
                s in finished,
                s in belief.sacrificed,
                int(view["calls_made"][s]),
            )
            for s in range(n)
        )
        direction = 1 if view.get("turn_direction", "clockwise") == "clockwise" else -1
        search = Endgame(seat, n, int(view["starting_hand"]), direction, budget)
        return search, seats, tuple(int(v) for v in view["scores"])

    def _call(self, ctx: BotContext, belief: _Belief) -> Move:
        """Candidate calls: a card of each other active seat (its target first), and the
        seat's own hand card as a last resort; each scored by playouts on the same guesses."""
        view, seat, rng = ctx.view, ctx.seat, ctx.rng
        n = int(view["players"])
        hand = sorted(view.get("hand", []))
        own_life = self._own_life(belief, seat, view)
        finished = set(view["finished"])
        known: dict[int, list[str]] = {s: [] for s in range(n) if s != seat and s not in finished}
        for card, owner in sorted(belief.owner.items()):
            if owner in known and card not in belief.gone:
                known[owner].append(card)
        start = self._endgame(ctx, belief, known)
        if start is not None:
            search, seats, scores = start
            try:
                choices = search.call_options(seats, scores)
            except OutOfBudget:
                choices = []
            if choices:
                chosen = max(choices, key=lambda o: (o.value, o.seat == view.get("target")))
                cards = hand if chosen.kind == "own" else known[chosen.seat]
                return {"call": rng.choice(sorted(cards))}
        avoid = set(hand) | own_life | belief.gone
        unknown = [c for c in pack(n) if c not in avoid and c not in belief.owner]
        target = view.get("target")
        hand_count, life_count = view["hand_count"], view["life_count"]

        def immediate(s: int) -> float:
            """The expected points of calling one of seat ``s``'s remaining cards."""
            total = int(hand_count[s]) + int(life_count[s])
            if total == 0:
                return float(_MISS)
            p_life = float(life_count[s]) / total
            kill = _KILL if s == target else _CRIT
            on_life = kill[1] if life_count[s] == 1 else kill[0]
            return p_life * on_life + (1 - p_life) * (_HIT if s == target else _MISS)

        scored = [(immediate(s), s) for s, cards in known.items() if cards]
        options: list[tuple[str, list[str]]] = []
        if scored:
            # Only the calls worth as much now as the best one, less a little, are searched:
            # the playouts then weigh what each does to the rest of the deal.
            top = max(value for value, _ in scored)
            options = [
                (f"seat{s}", known[s]) for value, s in scored if value >= top - self.call_slack
            ]
        if unknown and (not options or target not in known or not known[target]):
            options.append(("unknown", unknown))
        if hand and not options:
            options.append(("own", hand))
        if not options:
            rest = [c for c in pack(n) if c not in own_life] or list(pack(n))
            return {"call": rng.choice(rest)}
        if len(options) == 1:
            return {"call": rng.choice(options[0][1])}
        per = max(1, self._iterations(ctx) // len(options))
        totals = [0.0] * len(options)
        for _ in range(per):
            hands, lifes = self._determinize(belief, seat, view, rng)
            seed = rng.random()
            picks = [rng.choice(cards) for _, cards in options]
            for index, card in enumerate(picks):
                sim = self._sim(view, [set(h) for h in hands], [set(x) for x in lifes], seed)
                deciding = sim.call(seat, card)
                if deciding is not None:
                    held = sorted(sim.hands[deciding])
                    sim.sacrifice(deciding, sim.rng.choice(held))
                totals[index] += _xato_utility(sim.run(seat), seat)
        best = max(range(len(options)), key=lambda i: (totals[i], -i))
        return {"call": rng.choice(options[best][1])}

    def _sacrifice(self, ctx: BotContext, belief: _Belief) -> Move:
        """Sacrifice a hand card (which one does not matter to anyone who cannot see it) or
        decline, whichever the playouts score higher."""
        view, seat, rng = ctx.view, ctx.seat, ctx.rng
        cards = [m["sacrifice"] for m in ctx.legal_moves if m["sacrifice"] is not None]
        if not cards:
            return {"sacrifice": None}
        card = rng.choice(cards)
        caller = belief.caller if belief.caller is not None else (seat - 1) % int(view["players"])
        known: dict[int, list[str]] = {}
        for c, owner in belief.owner.items():
            if owner != seat and c not in belief.gone:
                known.setdefault(owner, []).append(c)
        start = self._endgame(ctx, belief, known)
        if start is not None:
            search, seats, scores = start
            try:
                keep, decline = search.sacrifice_options(seats, scores, caller)
                return {"sacrifice": card if keep.value >= decline.value else None}
            except OutOfBudget:
                pass
        per = max(1, self._iterations(ctx) // 2)
        totals = [0.0, 0.0]
        for _ in range(per):
            hands, lifes = self._determinize(belief, seat, view, rng)
            seed = rng.random()
            for index, choice in enumerate((card, None)):
                sim = self._sim(view, [set(h) for h in hands], [set(x) for x in lifes], seed)
                sim.sacrifice(seat, choice)
                totals[index] += _xato_utility(sim.run(caller), seat)
        return {"sacrifice": card if totals[0] >= totals[1] else None}
