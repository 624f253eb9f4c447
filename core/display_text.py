"""Text one user writes for others to read (chat messages, an operator's reason): it must show
something, and it may not change how the text around it is shown.

Refused, as a ``validation_error`` naming the field:

- text with nothing visible: only spaces, format characters (zero-width space and joiners,
  soft hyphen, word joiner, BOM…), combining marks with nothing to combine with, or the blank
  letters fonts draw as nothing (Hangul fillers, the blank Braille pattern);
- the bidirectional embedding, override and isolate controls (U+202A to U+202E, U+2066 to U+2069):
  a message holding an unclosed one reorders what a client draws after it, other players'
  messages and names included. Plain right-to-left text needs none of them (the marks U+200E,
  U+200F and U+061C, which reorder nothing outside their own text, are allowed).
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext_noop

BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
CONTROL_MESSAGE = gettext_noop(
    "Control characters (a new line, a tab…), format characters and line separators are not "
    "allowed."
)
BIDI_MESSAGE = "Bidirectional embedding, override and isolate controls are not allowed."
INVISIBLE_MESSAGE = "The text shows nothing: it holds only spaces or invisible characters."

#: Categories that draw nothing on their own: controls, format characters, separators, marks
#: (a mark alone has no base). Unassigned code points pass: they may be newer than this
#: Python's Unicode tables (a new emoji).
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
#: Letters and symbols that fonts draw blank.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible(character: str) -> bool:
    return character not in _BLANK and unicodedata.category(character) not in _INVISIBLE_CATEGORIES


#: What a one-line name may not hold: controls (new line, tab, carriage return…), format
#: characters (zero-width ones, bidirectional controls, soft hyphen) and the line and paragraph
#: separators. Files other software reads (a tournament report) would break a line on them.
_BREAKING_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def name_text_problem(text: str) -> str | None:
    """Why ``text`` may not be a one-line name that files for other software carry (a
    tournament's name in its report file), or None if it may: as ``display_text_problem``,
    and no control, format or line-separator character at all."""
    if any(unicodedata.category(character) in _BREAKING_CATEGORIES for character in text):
        return CONTROL_MESSAGE
    return display_text_problem(text)


def display_text_problem(text: str) -> str | None:
    """Why ``text`` may not be shown to others (module docstring), or None if it may."""
    if BIDI_CONTROLS.search(text):
        return BIDI_MESSAGE
    if not any(visible(character) for character in text):
        return INVISIBLE_MESSAGE
    return None
