"""The sections of the match page, each what a spectator may read: seats, clocks in words,
proposals, seat offers, tenures, chat and the public events (the audit). ``Match.state``, move
payloads and commitments are never rendered; a clock is counted as if its seat had not moved."""

from __future__ import annotations

import json
from typing import Any

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from console.forms import seat_label
from console.texts import controller_label, duration_words, yes_no
from games.events import event_for, timestamp
from games.models import Match, MatchEvent
from games.services import substitutes
from games.services.archive import archived_events
from games.services.clocks_shown import clocks_shown, deadline_shown
from games.services.presenters import spectator_reader
from games.services.proposals import proposals_read
from games.time_controls import TimeControl, counted_ms, parse, spend, zone
from social.models import ChatMessage

EVENTS_SHOWN = 500
CHAT_SHOWN = 50


def deadline(match: Match) -> Any:
    """The step's deadline every reader sees: the row's own may be earlier when a seat moved
    under ``disclose_submitted: false``, and would tell an operator which one."""
    return deadline_shown(match, [seat.forfeited for seat in match.seats.all()])


def _table(css: str, heads: tuple[str, ...], rows: Any) -> SafeString:
    head = format_html_join("", '<th scope="col">{}</th>', ((h,) for h in heads))
    cells = "".join("<td>{}</td>" for _ in heads)
    body = format_html_join("", "<tr>" + cells + "</tr>", rows)
    return format_html(
        '<table class="{}"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', css, head, body
    )


def seats_table(match: Match) -> SafeString:
    return _table(
        "seats",
        ("index", "player", "bot", "forfeited", "controlled by", "accepted", "score"),
        (
            (
                seat.index,
                seat.user.username if seat.user is not None else "—",
                seat.bot or "—",
                yes_no(seat.forfeited),
                controller_label(seat.controlled_by),
                yes_no(seat.accepted),
                match.scores[seat.index] if seat.index < len(match.scores) else 0,
            )
            for seat in match.seats.all()
        ),
    )


def _left_now(match: Match, seat: int, remaining: float | None, now: Any) -> str:
    """What a spectator's clock shows now: counted from the stored clock as if its seat had
    not moved (the shown clock hides a sealed stop), or what a stopped clock holds."""
    if remaining is None:
        return "moved (told when the step resolves)"
    clock = (match.clocks or [])[seat]
    since = parse(clock["since"])
    if since is None or since > now or clock["out"] or match.status != Match.Status.ACTIVE:
        return duration_words(remaining)
    if clock["stop"] is not None and match.disclose_submitted:
        return duration_words(remaining)
    tc = TimeControl.of(match.time_control or {})
    used = counted_ms(since, now, zone(clock["tz"]))
    bank, periods = spend(tc, clock["bank"], clock["periods"], used)
    left = duration_words(bank / 1000)
    if tc.kind == "byoyomi":
        return f"{left} + {periods} x {duration_words(tc.period_seconds)}"
    return left


def _running_text(since: str | None, now: Any) -> str:
    at = parse(since)
    if at is None:
        return "stopped"
    return f"held until {since}" if at > now else f"running since {since}"


def clocks_table(match: Match) -> SafeString | str:
    seats = list(match.seats.all())
    shown = clocks_shown(match, None, [seat.held_until for seat in seats])
    if shown is None or not match.time_control:
        return "—"
    now = timezone.now()
    rows = format_html_join(
        "",
        '<tr><td>{}</td><td class="left-now">{}</td><td>{}</td><td>{}</td><td>{}</td>'
        "<td>{}</td></tr>",
        (
            (
                clock["seat"],
                _left_now(match, clock["seat"], clock["remaining"], now),
                _running_text(clock["running_since"], now),
                "—" if clock["periods_left"] is None else clock["periods_left"],
                clock["expires_at"] or "—",
                f"on vacation until {clock['vacation_until']}" if clock["vacation_until"] else "—",
            )
            for clock in shown
        ),
    )
    return format_html(
        '<table class="clocks"><thead><tr><th scope="col">seat</th><th scope="col">left now'
        '</th><th scope="col">running</th><th scope="col">periods left</th><th scope="col">'
        'runs out</th><th scope="col">vacation</th></tr></thead><tbody>{}</tbody></table>',
        rows,
    )


def proposals_table(match: Match) -> SafeString | str:
    proposals = proposals_read(match, timezone.now())
    if not proposals:
        return "—"
    names = {seat.index: seat_label(seat) for seat in match.seats.all()}
    return _table(
        "proposals",
        (
            "id",
            "kind",
            "proposer",
            "until",
            "status",
            "accepted",
            "proposed",
            "expires",
            "answered",
            "answered by",
        ),
        (
            (
                p["id"],
                p["kind"],
                names.get(p["proposer"], p["proposer"]),
                p["until"] or "—",
                p["status"],
                ", ".join(str(names.get(seat, seat)) for seat in p["accepted"]) or "—",
                p["created_at"],
                p["expires_at"],
                p["answered_at"] or "—",
                "—" if p["answered_by"] is None else names.get(p["answered_by"], "?"),
            )
            for p in proposals
        ),
    )


def substitutes_table(match: Match) -> SafeString | str:
    offers = substitutes.substitutes_read(match)["offers"]
    if not offers:
        return "—"
    return _table(
        "seat-offers",
        ("id", "seat", "offered by", "to", "status", "offered", "answered", "taken by"),
        (
            (
                o["id"],
                o["seat"],
                o["offered_by"],
                o["invitee"] or "anyone (open seat)",
                o["status"],
                o["created_at"],
                o["answered_at"] or "—",
                o["taken_by"] or "—",
            )
            for o in offers
        ),
    )


def tenures_table(match: Match) -> SafeString | str:
    tenures = substitutes.tenures_of(match)
    if not tenures:
        return "—"
    return _table(
        "tenures",
        ("seat", "player", "from step", "to step"),
        (
            (t["seat"], t["player"], t["from_step"], "—" if t["to_step"] is None else t["to_step"])
            for t in tenures
        ),
    )


def chat_table(match: Match) -> SafeString | str:
    """The match's chat as spectators read it, with the hidden lines marked (staff hide them
    from the chat messages' list)."""
    lines = list(
        ChatMessage.objects.filter(match_id=match.pk)
        .select_related("author")
        .order_by("-seq")[:CHAT_SHOWN]
    )
    if not lines:
        return "—"
    lines.reverse()
    return _table(
        "chat",
        ("#", "at", "author", "text", "hidden"),
        (
            (
                line.seq,
                timestamp(line.at) or "—",
                line.author.username,
                line.text,
                f"hidden: {line.hidden_reason}" if line.hidden else "—",
            )
            for line in lines
        ),
    )


def fairness(match: Match) -> SafeString:
    seed = match.seed if match.is_over else "(published when the match is over)"
    return format_html(
        "seed_sha256: <code>{}</code><br>seed: <code>{}</code>", match.seed_sha256, seed
    )


def _event_data(data: Any) -> SafeString | str:
    if data is None:
        return "—"
    return format_html("<code>{}</code>", json.dumps(data, sort_keys=True))


def events_table(match: Match) -> SafeString:
    total = match.last_seq
    events = list(
        MatchEvent.objects.filter(match=match)
        .order_by("-seq")
        .only("seq", "type", "step", "at", "show_at", "data", "table_only")[:EVENTS_SHOWN]
    )
    events.reverse()
    if not events and match.is_over and total:  # archived: the same rows, from its archive
        events = (archived_events(match) or [])[-EVENTS_SHOWN:]
    # Operators read events as spectators do (the one redaction of games.events).
    reader = spectator_reader(match)
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                event.seq,
                event.type + (" (table only)" if event.table_only else ""),
                event.step if event.step is not None else "—",
                shown["at"] or "—",
                _event_data(shown["data"]),
            )
            for event, shown in ((e, event_for(e, reader)) for e in events)
        ),
    )
    note = (
        format_html("<p>The last {} of {} events.</p>", EVENTS_SHOWN, total)
        if total > EVENTS_SHOWN
        else ""
    )
    return format_html(
        '{}<table class="events"><thead><tr><th scope="col">seq</th><th scope="col">type</th>'
        '<th scope="col">step</th><th scope="col">at</th><th scope="col">data</th></tr>'
        "</thead><tbody>{}</tbody></table>",
        note,
        rows,
    )
