"""What every page's template gets besides Django's own context."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language, gettext, override

from games.catalog import catalogue_texts


@cache
def _catalogue_words(language: str) -> dict[str, str]:
    with override(language):
        return {text: gettext(text) for text in catalogue_texts()}


def catalogue_words(request: HttpRequest) -> dict[str, object]:
    """The game catalogue's texts (option titles, choices, bot notes) in the page's language,
    keyed by their English: ``GET /games`` serves them in English to every client, and the
    page's script shows them translated. Nothing for an English page."""
    language = get_language() or settings.LANGUAGE_CODE
    if language == settings.LANGUAGE_CODE:
        return {"catalogue_words": {}}
    return {"catalogue_words": _catalogue_words(language)}
