"""Observations for bots, built in one place so that the server and the arena feed a bot
exactly the same thing.

After the match starts, a seat observes its view of the deal and no events. After a step
resolves, it observes its view of the new state and the step's ``step_resolved`` data as
redacted for that seat: the resolution's public data merged with the seat's own private part
(the same merge as ``games.events.event_for`` makes for a seat's reader), never anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardgames.bots.base import Bot, Observation
from cardgames.engines.protocol import Engine, Resolution, State


def resolution_for_seat(resolution: Resolution[Any], seat: int) -> dict[str, Any]:
    """The step's resolution data as ``seat`` may read it: public data and its private part."""
    return {**resolution.public, **resolution.private.get(seat, {})}


def observation_for(
    engine: Engine,
    state: State,
    seat: int,
    resolution: Resolution[Any] | None,
    memory: Mapping[str, Any],
    options: Mapping[str, Any],
) -> Observation:
    """What ``seat`` observes in ``state``: the state the match started with
    (``resolution`` None), or the state a step resolved into (``resolution`` that step's)."""
    events = [] if resolution is None else [resolution_for_seat(resolution, seat)]
    return Observation(
        seat=seat,
        view=engine.view(state, seat),
        events=events,
        memory=memory,
        options=options,
    )


def bot_observe(bot: Bot, observation: Observation) -> dict[str, Any]:
    """The bot's new memory after ``observation``."""
    return bot.observe(observation)
