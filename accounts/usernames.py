"""Usernames: one spelling per name, and no name that reads like another.

A username is normalised to Unicode NFKC before anything else (so "alice" typed in full-width
letters is "alice"), must then be 3 to 30 characters of ``A-Za-z0-9_.-``, and is unique
regardless of case. Login is case-insensitive too (``accounts.backends``).

Restricting names to ASCII after NFKC already refuses mixed-script look-alikes ("alice" with a
Cyrillic first letter). What ASCII itself confuses is caught by a *skeleton*, in the spirit of
Unicode UTS #39: capital ``I`` and the digit ``1`` read as ``l``, the digit ``0`` as ``o``,
``rn`` as ``m`` and ``vv`` as ``w``; the rest is case-folded. A new name whose skeleton equals
an existing name's is refused. The same mapping is written once as a database expression so the
check is one query.
"""

from __future__ import annotations

import re
import unicodedata

from django.db.models import F, Func, Value
from django.db.models.functions import Lower, Replace

USERNAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,30}$")

# Before case-folding: only the capital I is confusable with l.
_BEFORE_FOLD: tuple[tuple[str, str], ...] = (("I", "l"),)
# After case-folding, in this order.
_AFTER_FOLD: tuple[tuple[str, str], ...] = (("rn", "m"), ("vv", "w"), ("1", "l"), ("0", "o"))


def username_normalise(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw).strip()


def username_skeleton(name: str) -> str:
    for old, new in _BEFORE_FOLD:
        name = name.replace(old, new)
    name = name.lower()
    for old, new in _AFTER_FOLD:
        name = name.replace(old, new)
    return name


def username_skeleton_expression(field: str = "username") -> Func:
    """``username_skeleton`` of a column, as a database expression."""
    expression: Func | Lower = Lower(_replace_all(field, _BEFORE_FOLD))
    for old, new in _AFTER_FOLD:
        expression = Replace(expression, Value(old), Value(new))
    return expression


def _replace_all(field: str, pairs: tuple[tuple[str, str], ...]) -> Func:
    expression: Func | F = F(field)
    for old, new in pairs:
        expression = Replace(expression, Value(old), Value(new))
    return expression  # type: ignore[return-value]
