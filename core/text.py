"""Messages for people with named parameters, translated when they are written.

A service raises ``SeatTaken(Text(gettext_noop("Seat %(seat)s is not open."), seat=3))``: the
template is marked for the catalogues, the parameters travel beside it, and ``said`` (called by
the problem writer, ``core.problems``, in the reader's language) looks up the template and fills
in the parameters then. As a string it is the English text, for logs and the console.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from django.utils.translation import gettext, gettext_noop


@runtime_checkable
class Templated(Protocol):
    """A text that knows its template and parameters: ``Text`` here, and the engines' own
    ``cardgames.engines.messages.Reason`` (they may not import Django, nor this module)."""

    template: str
    params: Mapping[str, object]


class Text(str):
    """The English text of a ``%(name)s`` template with its parameters, which keeps both so
    that ``said`` can write it in another language. A ``str``: everything that reads it as
    text (logs, the console, a comparison in a test) reads the English. A parameter that is
    itself a ``Text`` is translated with it (a status word, for example)."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, /, **params: object) -> Text:
        text = super().__new__(cls, template % {k: str(v) for k, v in params.items()})
        text.template = template
        text.params = params
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (_text, (self.template, dict(self.params)))


def _text(template: str, params: dict[str, object]) -> Text:
    return Text(template, **params)


def said(text: object) -> str:
    """``text`` in the active language: a template with parameters is translated and filled
    in, a message of a catalogue (ours, Django's, DRF's) is looked up, anything else is kept
    as it is."""
    if isinstance(text, Templated):
        values = {k: said(v) if isinstance(v, Templated) else v for k, v in text.params.items()}
        return gettext(text.template) % values
    plain = str(text)
    return gettext(plain) if plain else plain


#: The status words a problem may name ("The match is finished."), as the API spells them.
STATUS_WORDS: dict[str, str] = {
    "open": gettext_noop("open"),
    "active": gettext_noop("active"),
    "finished": gettext_noop("finished"),
    "aborted": gettext_noop("aborted"),
    "pending": gettext_noop("pending"),
    "accepted": gettext_noop("accepted"),
    "declined": gettext_noop("declined"),
    "withdrawn": gettext_noop("withdrawn"),
    "expired": gettext_noop("expired"),
    "cancelled": gettext_noop("cancelled"),
    "canceled": gettext_noop("canceled"),
    "matched": gettext_noop("matched"),
}


def status_word(status: str) -> str:
    """A status as a parameter: translated when it is one of ``STATUS_WORDS``."""
    return Text(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def one_of(choices: Iterable[str]) -> Text:
    """The field message for a value outside a fixed set of codes."""
    return Text(gettext_noop("One of %(choices)s."), choices=", ".join(choices))


def whole_number(low: int, high: int) -> Text:
    return Text(gettext_noop("A whole number from %(low)s to %(high)s."), low=low, high=high)


def at_most_characters(high: int) -> Text:
    return Text(gettext_noop("At most %(high)s characters."), high=high)


def characters_from_one(high: int) -> Text:
    return Text(gettext_noop("From 1 to %(high)s characters."), high=high)


def seat_between(last: int) -> Text:
    return Text(gettext_noop("Seat must be between 0 and %(last)s."), last=last)


def seat_range(game: str, low: int, high: int, *, seats: bool = False) -> Text:
    """A game's seat count; ``game`` is its name (a proper name, never translated)."""
    if seats:
        template = gettext_noop("%(game)s takes %(low)s to %(high)s seats.")
    else:
        template = gettext_noop("%(game)s takes %(low)s to %(high)s.")
    return Text(template, game=game, low=low, high=high)
