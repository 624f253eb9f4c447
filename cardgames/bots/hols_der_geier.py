"""Hols der Geier bots. ``greedy`` spends high cards on big mice and keeps clear of the lowest
bid on vultures; under ``history: table_only`` it remembers the spent cards it saw on the piles
(in its memory, as a player at the table would)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from cardgames.bots.base import BaseBot, BotContext, Decision, Observation, nearest_card


class GreedyHolsBot(BaseBot):
    name = "greedy"

    def choose(self, ctx: BotContext) -> Decision:
        view, legal_moves = ctx.view, ctx.legal_moves
        pot = sum(view.get("pot", []))
        # Mice 1..10 map onto bid cards 1..15, a bigger pot deserving a higher card; against
        # vultures bid in the middle-high range, never the lowest card.
        target = 1.5 * pot + 1 if pot >= 0 else 6 + 1.5 * -pot
        cards = sorted(move["card"] for move in legal_moves)
        candidates = legal_moves
        if pot < 0 and len(cards) > 1:
            candidates = [move for move in legal_moves if move["card"] != cards[0]]
        move = nearest_card(candidates, target, ctx.rng)
        return Decision(move=move, memory=_remember(view, ctx.memory))


def _remember(view: Mapping[str, Any], memory: Mapping[str, Any]) -> dict[str, Any]:
    """Record every seat's visible top card of the current deal (table_only play)."""
    deal = view.get("deal")
    seen: dict[str, Any] = dict(memory) if memory.get("deal") == deal else {"deal": deal}
    spent = {str(k): list(v) for k, v in seen.get("spent", {}).items()}
    for index, top in enumerate(view.get("piles", [])):
        if top is not None and top not in spent.setdefault(str(index), []):
            spent[str(index)].append(top)
    seen["spent"] = spent
    return seen


# --- the rank-mapping rule and the expert ------------------------------------------------------

BIDS: tuple[int, ...] = tuple(range(1, 16))


def importance(value: int) -> float:
    """How much a pot of ``value`` is worth fighting for: a mouse its value, a vulture (to be
    dodged, which a middling bid usually does) half its size."""
    return float(value) if value >= 0 else 0.5 * -value


def rank_bid(
    hand: list[int], pot: int, upcoming: list[int], rng: random.Random, jitter: float = 0.0
) -> int:
    """The rank-mapping rule: the pot (its importance) takes the same rank among the prizes
    still to contest (it and ``upcoming``) as the bid takes in ``hand`` (sorted). A rank that
    falls between two cards is rounded at random, in proportion; with probability ``jitter``
    the bid moves one card up or down, so that equal hands do not always cancel out."""
    return _bid_at(hand, _quantile(pot, upcoming), rng, jitter)


def _quantile(pot: int, upcoming: list[int]) -> float:
    """Where the pot ranks among the prizes still to contest, from 0 (least) to 1 (most)."""
    key = importance(pot)
    below = 0.5
    for card in upcoming:
        other = importance(card)
        below += 1.0 if other < key else 0.5 if other == key else 0.0
    return below / (len(upcoming) + 1)


def _bid_at(hand: list[int], quantile: float, rng: random.Random, jitter: float = 0.0) -> int:
    size = len(hand)
    if size == 1:
        return hand[0]
    position = quantile * size - 0.5
    index = int(position) + (1 if rng.random() < position - int(position) else 0)
    if jitter and rng.random() < jitter:
        index += rng.choice((-1, 1))
    return hand[min(max(index, 0), size - 1)]


def winner_of(pot: int, bids: list[int]) -> int | None:
    """The seat whose unique bid takes a pot summing to ``pot`` (None: all cancel)."""
    counts: dict[int, int] = {}
    for bid in bids:
        counts[bid] = counts.get(bid, 0) + 1
    unique = [bid for bid in bids if counts[bid] == 1]
    if not unique:
        return None
    return bids.index(max(unique) if pot >= 0 else min(unique))


def play_out(
    hands: list[list[int]],
    pot: int,
    prizes: list[int],
    scores: list[int],
    first_bids: list[int],
    rng: random.Random,
) -> list[int]:
    """The scores at the end of the deal when this turn's bids are ``first_bids`` and every
    later turn is bid by the rank-mapping rule. ``hands`` (sorted, this turn's bids still in
    them) and ``scores`` are copied; ``prizes`` are the point cards still to turn up, in order."""
    hands = [list(hand) for hand in hands]
    scores = list(scores)
    bids = first_bids
    turn = 0
    while True:
        for seat, bid in enumerate(bids):
            hands[seat].remove(bid)
        winner = winner_of(pot, bids)
        if winner is not None:
            scores[winner] += pot
            pot = 0
        if turn >= len(prizes):
            return scores
        pot += prizes[turn]
        turn += 1
        quantile = _quantile(pot, prizes[turn:])
        bids = [_bid_at(hand, quantile, rng) for hand in hands]


def _spent_memory(view: Mapping[str, Any], memory: Mapping[str, Any]) -> list[list[int]]:
    """Per seat, the cards it has spent in the current deal as far as this seat knows: what it
    remembered (from every resolved step it observed), the history (``full``) and the piles."""
    players = len(view.get("piles", []))
    deal = view.get("deal")
    old = memory.get("spent") if memory.get("deal") == deal else None
    spent: list[set[int]] = [set() for _ in range(players)]
    if isinstance(old, list) and len(old) == players:
        for seat, cards in enumerate(old):
            spent[seat].update(int(card) for card in cards)
    for entry in view.get("history", []):
        if entry.get("deal") == deal:
            for seat, card in enumerate(entry.get("bids", [])):
                spent[seat].add(int(card))
    for seat, top in enumerate(view.get("piles", [])):
        if top is not None:
            spent[seat].add(int(top))
    return [sorted(cards) for cards in spent]


EXPERT_OPTIONS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "samples": {
            "description": (
                "Sampled deals per decision: the other seats' hands and the order of the point "
                "cards still to come are drawn this many times, and every bid is played out "
                "against the same draws (more is stronger and slower)."
            ),
            "type": "integer",
            "minimum": 1,
            "maximum": 400,
            "default": 24,
        },
        "tolerance": {
            "description": (
                "Bids whose sampled value is within this many points of the best are played "
                "at random (a mixed strategy, so that the bot's bids cannot be predicted and "
                "cancelled)."
            ),
            "type": "number",
            "minimum": 0,
            "maximum": 5,
            "default": 0.25,
        },
    },
}


class ExpertHolsBot(BaseBot):
    """Sampled search over the other seats' remaining cards and the order of the prizes to
    come: every bid in hand is played out against the same draws, the other seats bidding (now
    and later) by the rank-mapping rule with its jitter, and one of the bids worth about the
    best is played. It remembers every seat's spent cards of the deal through ``observe``."""

    name = "expert"
    options_schema = EXPERT_OPTIONS

    def observe(self, obs: Observation) -> dict[str, Any]:
        view = obs.view
        deal = view.get("deal")
        spent = _spent_memory(view, obs.memory)
        for event in obs.events:
            if event.get("deal") == deal and event.get("next_deal") == deal:
                for seat, card in enumerate(event.get("bids", [])):
                    if card not in spent[seat]:
                        spent[seat].append(int(card))
        return {"deal": deal, "spent": [sorted(cards) for cards in spent]}

    def choose(self, ctx: BotContext) -> Decision:
        view, rng, seat = ctx.view, ctx.rng, ctx.seat
        spent = _spent_memory(view, ctx.memory)
        memory: dict[str, Any] = {"deal": view.get("deal"), "spent": spent}
        hand = sorted(move["card"] for move in ctx.legal_moves)
        if len(hand) == 1:
            return Decision(move={"card": hand[0]}, memory=memory)
        samples = int(ctx.options.get("samples", 24))
        tolerance = float(ctx.options.get("tolerance", 0.25))
        players = len(spent)
        pot = sum(view.get("pot", []))
        remaining = [int(card) for card in view.get("remaining_prizes", [])]
        scores = [int(score) for score in view.get("scores", [0] * players)]
        turns_left = len(hand)
        totals = [0.0] * len(hand)
        for _ in range(samples):
            hands = [
                hand if other == seat else _sample_hand(spent[other], turns_left, rng)
                for other in range(players)
            ]
            prizes = rng.sample(remaining, turns_left - 1)
            guesses = [
                0 if other == seat else rank_bid(hands[other], pot, remaining, rng)
                for other in range(players)
            ]
            stream = rng.getrandbits(64)
            for index, card in enumerate(hand):
                guesses[seat] = card
                final = play_out(hands, pot, prizes, scores, guesses, random.Random(stream))
                totals[index] += _utility(final, seat)
        means = [total / samples for total in totals]
        best = max(means)
        scale = 1.0 if players == 2 else 0.1  # utilities: points at 2 players, else win share
        near = [
            card for card, mean in zip(hand, means, strict=True) if mean >= best - tolerance * scale
        ]
        return Decision(move={"card": rng.choice(near)}, memory=memory)


def _sample_hand(spent: list[int], size: int, rng: random.Random) -> list[int]:
    """A hand of ``size`` cards the seat may hold: its unspent cards (in the two-player
    variant some of them were removed unseen, so a random ``size`` of them)."""
    pool = [card for card in BIDS if card not in spent]
    if len(pool) < size:  # memory incomplete (it joined late): any cards will do
        pool = list(BIDS)
    return sorted(rng.sample(pool, size))


def _utility(scores: list[int], seat: int) -> float:
    """Two players: the margin. More: winning (the highest total held by one seat alone),
    with a little of the margin over the best other seat to break ties between bids."""
    others = [score for other, score in enumerate(scores) if other != seat]
    if len(others) == 1:
        return float(scores[seat] - others[0])
    mine = scores[seat]
    top_other = max(others)
    won = 1.0 if mine > top_other else 0.0
    return won + 0.01 * (mine - top_other)
