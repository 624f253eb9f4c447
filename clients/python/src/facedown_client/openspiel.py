"""OpenSpiel bots, unmodified, play Facedown's GOPS (``pip install facedown-client[openspiel]``).

A Facedown GOPS match is OpenSpiel's ``goofspiel`` with ``players=2``, ``num_cards`` as the
match's, ``points_order="random"`` (Facedown deals the prizes at random: each prize is a chance
node), ``imp_info=False`` (Facedown shows every bid once a turn resolves; OpenSpiel's
``imp_info=True`` would show only wins and losses) and ``returns_type="total_points"`` (the
returns are Facedown's scores). Only ``tie_rule = "discard"`` is goofspiel's rule: a match
with another tie rule is refused (``UnsupportedMatch``; ``accept`` and ``join`` decline it).

``OpenSpielBot`` drives a ``pyspiel.Bot`` as OpenSpiel's ``evaluate_bots`` does: ``restart_at``
the initial state, ``inform_action(state, CHANCE, prize)`` for each prize Facedown turns up
(action ``a`` is card ``a + 1``), the turn's joint action applied, and ``step(state)`` at each
simultaneous node where it must bid::

    import pyspiel
    from facedown_client import Client, run
    from facedown_client.openspiel import OpenSpielBot

    bot = OpenSpielBot(lambda game, seat: pyspiel.make_uniform_random_bot(seat, 1234))
    run(Client.from_env(), bot)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from facedown_client.bot import Bot, SeatView
from facedown_client.errors import FacedownError
from facedown_client.types import Challenge, DeclineReason, Match, Move


def _pyspiel() -> Any:
    try:
        return importlib.import_module("pyspiel")
    except ImportError as error:  # the extra is not installed
        raise FacedownError(
            "facedown_client.openspiel needs OpenSpiel: pip install 'facedown-client[openspiel]'"
        ) from error


class UnsupportedMatch(FacedownError):
    """A match OpenSpiel's goofspiel cannot play (another game, tie rule or table size)."""


def why_unsupported(game: str, options: Mapping[str, Any], seats: int = 2) -> str | None:
    """Why a match of ``game`` with ``options`` is not goofspiel, or None when it is."""
    if game != "gops":
        return f"OpenSpiel's goofspiel plays GOPS, not {game!r}"
    if options.get("tie_rule") != "discard":  # the server's default is penguin
        return (
            f"tie_rule {options.get('tie_rule')!r} is not goofspiel's rule: a tied bid "
            "discards the prize (tie_rule 'discard') in OpenSpiel"
        )
    if seats != 2:
        return f"goofspiel is played here by two players, not {seats}"
    return None


def goofspiel(num_cards: int) -> Any:
    """OpenSpiel's game for a Facedown GOPS match of ``num_cards`` cards."""
    return _pyspiel().load_game(
        "goofspiel",
        {
            "num_cards": num_cards,
            "players": 2,
            "points_order": "random",
            "imp_info": False,
            "returns_type": "total_points",
        },
    )


def replay(game: Any, turns: Iterable[Mapping[str, Any]], prize: int | None = None) -> Any:
    """The OpenSpiel state after Facedown's resolved ``turns`` (a view's ``history``: ``pot``
    and ``bids`` per turn), with ``prize`` (the open turn's prize card) turned up if given. A
    finished match's replay is terminal, its ``returns()`` the match's scores."""
    state = game.new_initial_state()
    for turn in turns:
        if state.is_terminal():
            break  # OpenSpiel plays the last turn, where every card is forced, by itself
        (card,) = turn["pot"]  # under tie_rule discard a pot is always one card
        state.apply_action(card - 1)
        state.apply_actions([bid - 1 for bid in turn["bids"]])
    if prize is not None:
        state.apply_action(prize - 1)
    return state


@dataclass
class _Table:
    """One match as OpenSpiel sees it: its bot, the state and how far it has been followed."""

    bot: Any
    state: Any
    turns: int = 0
    prize_shown: bool = False
    actions: list[int] = field(default_factory=list)


class OpenSpielBot(Bot):
    """Plays Facedown GOPS matches with OpenSpiel bots: ``make_bot(game, seat)`` returns the
    ``pyspiel.Bot`` for one match (a fresh one per match), ``game`` being ``goofspiel(n)``."""

    def __init__(self, make_bot: Callable[[Any, int], Any]) -> None:
        self.make_bot = make_bot
        self.tables: dict[str, _Table] = {}
        #: The OpenSpiel actions the bot chose, per match (card = action + 1).
        self.actions: dict[str, list[int]] = {}
        self._pyspiel = _pyspiel()

    def accept(self, challenge: Challenge) -> bool | DeclineReason:
        refused = why_unsupported(
            challenge["game"], challenge.get("options") or {}, challenge.get("seats") or 2
        )
        return True if refused is None else "variant"

    def join(self, match: Match) -> bool:
        return why_unsupported(match["game"], match["options"], len(match["seats"])) is None

    def _table(self, view: SeatView) -> _Table:
        table = self.tables.get(view.match_id)
        if table is None:
            refused = why_unsupported(view.game, view.options, len(view.match["seats"]))
            if refused is not None:
                raise UnsupportedMatch(f"match {view.match_id}: {refused}")
            game = goofspiel(int(view.options["num_cards"]))
            state = game.new_initial_state()
            bot = self.make_bot(game, view.seat)
            bot.restart_at(state)
            table = self.tables[view.match_id] = _Table(bot, state)
            self.actions[view.match_id] = table.actions
        return table

    def _prize(self, table: _Table, card: int) -> None:
        action = card - 1
        table.bot.inform_action(table.state, self._pyspiel.PlayerId.CHANCE, action)
        table.state.apply_action(action)

    def choose(self, view: SeatView) -> Move:
        table = self._table(view)
        for turn in view.view["history"][table.turns :]:
            if not table.prize_shown:
                (card,) = turn["pot"]
                self._prize(table, card)
            table.state.apply_actions([bid - 1 for bid in turn["bids"]])
            table.turns += 1
            table.prize_shown = False
        if not table.prize_shown:
            (card,) = view.view["pot"]
            self._prize(table, card)
            table.prize_shown = True
        if not table.state.is_simultaneous_node():
            raise UnsupportedMatch(f"match {view.match_id}: OpenSpiel's state is not a bid")
        action = int(table.bot.step(table.state))
        move: Move = {"card": action + 1}
        if move not in view.legal_moves:
            raise UnsupportedMatch(
                f"match {view.match_id}: OpenSpiel's action {action} is no legal move here"
            )
        table.actions.append(action)
        return move

    def finished(self, match: Match) -> None:
        self.tables.pop(str(match["id"]), None)
