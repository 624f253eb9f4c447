"""CSV cells a spreadsheet cannot read as formulas (OWASP's CSV injection guidance, #46)."""

from __future__ import annotations

import csv
import io

import pytest

from core.csv_cells import csv_cell, csv_text

HOSTILE = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+1",
    "-2-346",
    "-1.0",
    "@SUM(A1:A2)",
    "\tcmd",
    "\rcmd",
    "\ncmd",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_that_could_start_a_formula_is_prefixed_with_a_quote(text: str) -> None:
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["alice", "1.5", 3, 0.5, "a=b", "x-1", "", None])
def test_other_cells_are_written_as_they_are(value: object) -> None:
    assert csv_cell(value) == ("" if value is None else str(value))


def test_numbers_below_zero_are_prefixed_too_as_owasp_asks() -> None:
    assert csv_cell(-1.5) == "'-1.5" and csv_cell(-3) == "'-3"


def test_a_whole_document_reads_back_with_every_cell_neutralised() -> None:
    text = csv_text(["player", "score"], [[name, -1.0] for name in HOSTILE])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["player", "score"]
    assert [row[0] for row in rows[1:]] == ["'" + name for name in HOSTILE]
    assert all(row[1] == "'-1.0" for row in rows[1:])
