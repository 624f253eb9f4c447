"""The table as a spectator sees it, in HTML: the engine's spectator view (``view(state,
None)``, the same redaction as every spectator's) laid out as nested tables and lists —
names in words, lists of numbers on one line, never a JSON dump."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.catalog import get_engine
from games.models import Match

MAX_DEPTH = 4


def _words(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _scalar(value: Any) -> str:
    if value is None:
        return "—"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def _flat(values: list[Any]) -> bool:
    return all(not isinstance(v, dict | list) for v in values)


def render(value: Any, depth: int = 0) -> SafeString:
    """One value of the view, as HTML."""
    if isinstance(value, dict):
        if not value:
            return format_html("{}", "—")
        rows = format_html_join(
            "",
            '<tr><th scope="row">{}</th><td>{}</td></tr>',
            ((_words(str(k)), render(v, depth + 1)) for k, v in value.items()),
        )
        return format_html('<table class="view">{}</table>', rows)
    if isinstance(value, list):
        if not value:
            return format_html("{}", "—")
        if _flat(value):
            return format_html("{}", ", ".join(_scalar(v) for v in value))
        if all(isinstance(v, dict) for v in value) and depth < MAX_DEPTH:
            return _records(value, depth)
        items = format_html_join(
            "", "<li>{}: {}</li>", ((i, render(v, depth + 1)) for i, v in enumerate(value))
        )
        return format_html('<ol class="view" start="0">{}</ol>', items)
    return format_html("{}", _scalar(value))


def _records(rows: list[dict[str, Any]], depth: int) -> SafeString:
    """A list of records (a history): one row each, one column per key."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    head = format_html_join("", '<th scope="col">{}</th>', ((_words(k),) for k in keys))
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        (
            (format_html_join("", "<td>{}</td>", ((render(row.get(k), depth + 1),) for k in keys)),)
            for row in rows
        ),
    )
    return format_html(
        '<table class="view records"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        head,
        body,
    )


def table_html(match: Match) -> SafeString:
    """The spectator view of the match's current state (what every spectator may read)."""
    engine = get_engine(match.game)
    state = Match.objects.filter(pk=match.pk).values_list("state", flat=True).get()
    if engine is None or state is None:
        return format_html("<p><em>{}</em></p>", "No table yet.")
    return render(engine.view(state, None))
