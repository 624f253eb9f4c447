"""A report's evidence as staff read it in the console: the chat lines as a table, the
match's public view (what a spectator reads; the snapshot never held more) in brief."""

from __future__ import annotations

import json
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from moderation.models import Report


def _chat(evidence: dict[str, Any]) -> SafeString:
    reported = (evidence.get("message") or {}).get("seq")
    rows = format_html_join(
        "",
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                "reported" if line.get("seq") == reported else "",
                line.get("seq"),
                line.get("at") or "",
                line.get("player") or "",
                line.get("text") if line.get("text") is not None else "",
            )
            for line in evidence.get("context") or []
        ),
    )
    return format_html(
        '<table class="chat-evidence"><thead><tr><th>#</th><th>at</th><th>player</th>'
        "<th>text</th></tr></thead><tbody>{}</tbody></table>",
        rows,
    )


def _match(resource: dict[str, Any]) -> SafeString:
    seats = ", ".join(
        f"{seat.get('index')}: {seat.get('player') or seat.get('bot') or '—'}"
        for seat in resource.get("seats") or []
    )
    view = json.dumps(resource.get("view"), ensure_ascii=False, separators=(", ", ": "))
    return format_html(
        "<dl><dt>match</dt><dd>{} ({}, {}, step {})</dd><dt>seats</dt><dd>{}</dd>"
        '<dt>table (public view)</dt><dd><code class="public-view">{}</code></dd></dl>',
        resource.get("id"),
        resource.get("game"),
        resource.get("status"),
        resource.get("step"),
        seats,
        view,
    )


def evidence_html(report: Report) -> SafeString:
    evidence = report.evidence or {}
    parts: list[SafeString] = []
    if "context" in evidence:
        parts.append(_chat(evidence))
    if "player" in evidence:
        parts.append(format_html("<p>player: {}</p>", evidence["player"]))
    if isinstance(evidence.get("match"), dict):
        parts.append(_match(evidence["match"]))
    if "appeal" in evidence:
        sanction = evidence.get("sanction") or {}
        parts.append(
            format_html(
                "<p>appeal of sanction {} ({}): {}</p>",
                sanction.get("id"),
                sanction.get("kind"),
                evidence["appeal"],
            )
        )
    return format_html_join("", "{}", ((part,) for part in parts))
