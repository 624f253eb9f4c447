"""A request's route for metrics and logs: the URL pattern's name, never the path."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

_STATIC_PREFIX = "/" + str(settings.STATIC_URL).lstrip("/")


def route_name(request: HttpRequest) -> str:
    """The matched URL pattern's name (``match-detail``), never the path: paths hold ids."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        # WhiteNoise answers static files before URL resolution.
        return "static" if request.path_info.startswith(_STATIC_PREFIX) else "unmatched"
    return str(match.view_name or match.route or "unnamed")
