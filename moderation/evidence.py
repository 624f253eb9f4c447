"""A report's evidence as staff read it in the console: the chat lines as a table, the
match's public view (what a spectator reads; the snapshot never held more) in brief."""

from __future__ import annotations

import json
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from moderation.models import Report


def _chat(evidence: dict[str, Any]) -> SafeString:
    reported = (evidence.get("message") or {}).get("seq")
    rows = format_html_join(
        "",
        '<tr class="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
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
        '<table class="chat-evidence"><thead><tr><th>#</th><th>{}</th><th>{}</th>'
        "<th>{}</th></tr></thead><tbody>{}</tbody></table>",
        _("Time"),
        _("Player"),
        _("Message"),
        rows,
    )


def _match(resource: dict[str, Any]) -> SafeString:
    seats = ", ".join(
        f"{seat.get('index')}: {seat.get('player') or seat.get('bot') or '—'}"
        for seat in resource.get("seats") or []
    )
    view = json.dumps(resource.get("view"), ensure_ascii=False, separators=(", ", ": "))
    return format_html(
        "<dl><dt>{}</dt><dd>{} ({}, {}, {} {})</dd><dt>{}</dt><dd>{}</dd>"
        '<dt>{}</dt><dd><code class="public-view">{}</code></dd></dl>',
        _("Match"),
        resource.get("id"),
        resource.get("game"),
        resource.get("status"),
        _("step"),
        resource.get("step"),
        _("Seats"),
        seats,
        _("The table as spectators see it"),
        view,
    )


def evidence_html(report: Report) -> SafeString:
    evidence = report.evidence or {}
    parts: list[SafeString] = []
    if report.match_id is not None:
        page = reverse("admin:games_match_change", args=[report.match_id])
        parts.append(format_html('<p><a href="{}">{}</a></p>', page, _("The match in the console")))
    if "context" in evidence:
        parts.append(_chat(evidence))
    if "player" in evidence:
        parts.append(format_html("<p>{}: {}</p>", _("Player"), evidence["player"]))
    if isinstance(evidence.get("match"), dict):
        parts.append(_match(evidence["match"]))
    if "appeal" in evidence:
        sanction = evidence.get("sanction") or {}
        page = reverse("admin:moderation_sanction_change", args=[sanction.get("id")])
        parts.append(
            format_html(
                '<p>{} <a href="{}">{}</a> ({}): {}</p>',
                _("Appeal of sanction"),
                page,
                sanction.get("id"),
                sanction.get("kind"),
                evidence["appeal"],
            )
        )
    return format_html_join("", "{}", ((part,) for part in parts))
