from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test.client import Client

from tests.players import Player, make_player
from tests.schema_guard import session_guard


@pytest.fixture(autouse=True, scope="session")
def responses_match_schema() -> Iterator[None]:
    """Every response of the test clients (Django's and DRF's) on a documented API path must
    match the OpenAPI schema; a stray one fails the test that received it."""
    received = Client.request

    def request(self: Client, **request: Any) -> Any:
        response = received(self, **request)
        session_guard().check(request["REQUEST_METHOD"], request["PATH_INFO"], response)
        return response

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Client, "request", request)
        yield


@pytest.fixture(autouse=True)
def throttle_leases_forgotten() -> None:
    """Tests clear the shared cache to reset the throttles; this process's reserved counts
    (core.throttling.ReservedCounts) go with it. A deployment never resets its counters."""
    from core.throttling import reserved_counts

    reserved_counts.forget()


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


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``rates(login="2/hour")``: lower some scopes for one test, counters cleared around it."""
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    def lower(**scopes: str) -> None:
        merged = {**SimpleRateThrottle.THROTTLE_RATES, **scopes}
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", merged)

    cache.clear()
    yield lower
    cache.clear()
