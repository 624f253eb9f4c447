"""CSV that a spreadsheet opens as data, never as formulas (OWASP's "CSV Injection" guidance).

Every CSV the project writes goes through ``csv_text``. A cell whose text begins with ``=``,
``+``, ``-``, ``@``, a tab, a carriage return or a line feed is prefixed with a single quote, so
a spreadsheet shows it as text rather than evaluating it (``=HYPERLINK(…)``, ``-2-346``,
``@SUM(…)``). OWASP asks for that prefix on every such cell, numbers included: a negative score
(``-1.0``) reads ``'-1.0`` and a spreadsheet shows it as text; a program that reads the file
strips a leading ``'`` from a cell that then parses as a number. As OWASP also asks, every cell
is quoted (``QUOTE_ALL``, quotes inside doubled): a carriage return inside a cell, which the
csv module's minimal quoting leaves bare under a ``\n`` line end, cannot end a row either.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

#: The characters a spreadsheet may start a formula (or a DDE call) with.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: object) -> str:
    """``value`` as the text of one cell, neutralised if it could start a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A whole CSV document: the header, then the rows, every cell through ``csv_cell``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow([csv_cell(name) for name in header])
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return out.getvalue()
