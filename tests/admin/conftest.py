from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


@pytest.fixture
def operator(db: None) -> User:
    return User.objects.create_superuser("operator", "op@example.com", "correct-horse-battery")


@pytest.fixture
def console(operator: User) -> Client:
    """Django's test client, logged in to the admin as a superuser."""
    client = Client()
    client.force_login(operator)
    return client


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The jobs handed to the task runner (recorded, never run)."""
    jobs: list[tuple[Any, ...]] = []

    def record(name: str, *args: Any, eta: Any = None) -> None:
        jobs.append((name, *args, eta))

    monkeypatch.setattr("games.dispatch.enqueue", record)
    return jobs
