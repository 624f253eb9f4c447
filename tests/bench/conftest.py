from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture
def redis_db() -> str:
    """This run's own Redis database (``REDIS_URL``'s) for a benchmark's stack, which flushes it:
    a fixed number would be shared by every checkout whose suite runs at the same time."""
    return settings.REDIS_URL.rpartition("/")[2] or "0"
