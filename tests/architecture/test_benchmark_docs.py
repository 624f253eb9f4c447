"""The benchmark pages stay readable: the current page short, the history a table per round."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_benchmarks_page_is_short() -> None:
    assert len((DOCS / "benchmarks.md").read_text().splitlines()) <= 250


def test_the_history_is_a_table_per_round() -> None:
    text = (DOCS / "benchmarks-history.md").read_text()
    assert len(text.encode()) <= 80_000
    # A round's section, with its subsections: up to the next heading of its level or higher.
    headings = list(re.finditer(r"^(#+) (.*)$", text, flags=re.M))
    missing, rounds = [], 0
    for n, heading in enumerate(headings):
        if not re.search(r"\w+ round[,)]", heading[2]):
            continue
        rounds += 1
        level = len(heading[1])
        end = next((h.start() for h in headings[n + 1 :] if len(h[1]) <= level), len(text))
        if "\n|" not in text[heading.end() : end]:
            missing.append(heading[2])
    assert rounds >= 12
    assert missing == []
