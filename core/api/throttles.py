"""Throttles for views only a signed-in user may call."""

from __future__ import annotations

from typing import cast

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from core.throttling import AnonRateThrottle

#: The default throttles but the anonymous one, for a view only a signed-in user may call:
#: DRF checks the permissions before the throttles, so such a view refuses an anonymous
#: request before any throttle counts it, and the anonymous throttle would only be asked.
SIGNED_IN_THROTTLES: list[type[BaseThrottle]] = [
    throttle
    for throttle in cast(list[type[BaseThrottle]], api_settings.DEFAULT_THROTTLE_CLASSES)
    if not issubclass(throttle, AnonRateThrottle)
]
