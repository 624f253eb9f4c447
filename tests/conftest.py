from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.players import Player, make_player


@pytest.fixture
def player(db: None) -> Callable[..., Player]:
    """Make a registered player with a token: ``player()`` or ``player("alice")``."""
    return make_player


@pytest.fixture
def alice(player: Callable[..., Player]) -> Player:
    return player("alice")


@pytest.fixture
def bob(player: Callable[..., Player]) -> Player:
    return player("bob")


@pytest.fixture
def carol(player: Callable[..., Player]) -> Player:
    return player("carol")
