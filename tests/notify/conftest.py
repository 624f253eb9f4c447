from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from notify.dispatch import register_channel, unregister_channel
from notify.kinds import Notification


class Recorder(list[Notification]):
    """A channel that keeps what it was handed."""

    def deliver(self, notifications: Sequence[Notification]) -> None:
        self.extend(notifications)

    def of(self, user_id: int) -> list[tuple[str, int | None]]:
        return [(n.type, n.data.get("step")) for n in self if n.user_id == user_id]


@pytest.fixture
def recorded() -> Iterator[Recorder]:
    recorder = Recorder()
    register_channel("test-recorder", recorder.deliver)
    yield recorder
    unregister_channel("test-recorder")
