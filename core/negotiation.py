"""DRF's content negotiation with a shortcut for the Accept headers API clients actually send.

``DefaultContentNegotiation.select_renderer`` parses the Accept header into media types, orders
them by precedence and matches each against every renderer, on every request. For no Accept
header, ``*/*`` or exactly a renderer's media type, the answer is known without that: the first
renderer (for ``*/*``) or the first one of that type, with its own media type, which is what
the full negotiation returns for those headers. Anything else (a list, parameters, quality
values, ``?format=``, a format suffix) still goes through DRF's negotiation, 406 included.
"""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation

ANY = ("", "*/*")


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Any, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        accept = request.META.get("HTTP_ACCEPT", "")
        if format_suffix is None and "format=" not in request.META.get("QUERY_STRING", ""):
            for renderer in renderers:
                if accept in ANY or accept == renderer.media_type:
                    return renderer, renderer.media_type
        return super().select_renderer(request, renderers, format_suffix)  # type: ignore[no-any-return]
