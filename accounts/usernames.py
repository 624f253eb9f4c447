"""Usernames: one spelling per name, and no name that reads like another.

A username is normalised to Unicode NFKC before anything else (so "alice" typed in full-width
letters is "alice"), must then be 3 to 30 characters of ``A-Za-z0-9_.-``, and is unique
regardless of case. Login is case-insensitive too (``accounts.backends``).

Non-ASCII letters ("émile", "李雷") are refused, deliberately: a name is read by other players
in a lobby, and allowing Unicode letters safely would need UTS #39 mixed-script and confusable
tables for every script (Cyrillic U+0430 for Latin "a", and so on), which Python's standard library
does not carry. The refusal states the pattern (``BAD_USERNAME``).

Restricting names to ASCII after NFKC already refuses mixed-script look-alikes ("alice" with a
Cyrillic first letter). What ASCII itself confuses is caught by a *skeleton*, in the spirit of
Unicode UTS #39, over the case-folded name (uniqueness ignores case, so the skeleton must too):
``i``, ``l`` and ``1`` read alike (capital I and small l are one glyph in many fonts), the
digit ``0`` reads as ``o``, ``rn`` as ``m`` and ``vv`` as ``w``. This refuses a few honest
names ("all" once "ali" exists), the price of refusing every "a1ice" and "AL1CE". A new name
whose skeleton equals an existing name's is refused. The same mapping is written once as a
database expression so the check is one query.

Names whose skeleton starts with ``deleted-`` are reserved: they read like a closed account's
placeholder. ``username_refusal`` is the one check every way to register goes through (the
API's ``register`` and the web sign-up).
"""

from __future__ import annotations

import re
import unicodedata

from django.db.models import F, Func, Value
from django.db.models.functions import Lower, Replace
from django.utils.translation import gettext_noop

from accounts.models import User

USERNAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,30}$")
RESERVED_PREFIX = "deleted-"

# English, marked for the catalogue: the reader's language replaces them where they are shown.
TAKEN = gettext_noop("This username is taken.")
LOOKS_ALIKE = gettext_noop("This username looks too much like an existing one.")
BAD_USERNAME = gettext_noop(
    "Must match the pattern ^[A-Za-z0-9_.-]{3,30}$ after Unicode NFKC normalisation: "
    "3 to 30 characters of A-Z, a-z, 0-9, '_', '.' and '-' (ASCII only, so accented and "
    "non-Latin letters such as 'émile' or '李雷' are refused)."
)
RESERVED = gettext_noop("Usernames that read like 'deleted-' are reserved.")

# Applied to the case-folded name, in this order.
_CONFUSABLE: tuple[tuple[str, str], ...] = (
    ("rn", "m"),
    ("vv", "w"),
    ("1", "l"),
    ("i", "l"),
    ("0", "o"),
)


def username_normalise(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw).strip()


def username_skeleton(name: str) -> str:
    name = name.lower()
    for old, new in _CONFUSABLE:
        name = name.replace(old, new)
    return name


def username_skeleton_expression(field: str = "username") -> Func:
    """``username_skeleton`` of a column, as a database expression."""
    expression: Func = Lower(F(field))
    for old, new in _CONFUSABLE:
        expression = Replace(expression, Value(old), Value(new))
    return expression


def username_refusal(name: str) -> str | None:
    """Why the normalised ``name`` cannot be registered, or None if it can."""
    if not USERNAME_PATTERN.fullmatch(name):
        return BAD_USERNAME
    if username_skeleton(name).startswith(username_skeleton(RESERVED_PREFIX)):
        return RESERVED
    if User.objects.filter(username__iexact=name).exists():
        return TAKEN
    lookalike = User.objects.annotate(skeleton=username_skeleton_expression()).filter(
        skeleton=username_skeleton(name)
    )
    if lookalike.exists():
        return LOOKS_ALIKE
    return None
