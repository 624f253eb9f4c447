"""The negotiation shortcut answers as DRF's full negotiation does, for every Accept header."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.negotiation import ContentNegotiation

RENDERER_SETS = [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]]
ACCEPTS = [
    None,
    "*/*",
    "application/json",
    "text/html",
    "application/json; indent=4",
    "text/html, application/json;q=0.9",
    "application/problem+json",
    "image/png",
]


@pytest.mark.parametrize("renderers", RENDERER_SETS, ids=["json", "json+html"])
@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=api", "?format=json"])
def test_same_answer_as_drf(renderers: list[object], accept: str | None, query: str) -> None:
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get("/api/v1/matches" + query, **headers))

    def answer(negotiation: DefaultContentNegotiation) -> object:
        try:
            renderer, media_type = negotiation.select_renderer(request, renderers)
        except NotAcceptable:
            return "406"
        except Exception as exc:  # the same error either way (e.g. 404 for an unknown format)
            return type(exc).__name__
        return type(renderer).__name__, media_type

    assert answer(ContentNegotiation()) == answer(DefaultContentNegotiation())
