"""The operator console: matches in the Django admin, read-only, with operator actions.

Nothing here edits a match directly: every change goes through ``games.services.operators``,
which records the operator and a reason in the match's events. What a page shows of a match
is what a spectator may read — the engine's spectator view, seats, and the public data of
events — so the console never reveals a sealed move, a hidden card, the stock order or (while
the match runs) the seed. ``Match.state``, move payloads and commitments are never rendered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.admin import FacedownUserAdmin
from accounts.models import User
from core.errors import FacedownError, VacationConflict
from games.catalog import bots_of, get_engine
from games.clock import TimeControl, counted_ms, parse, spend, zone
from games.events import event_for, timestamp
from games.models import Match, MatchEvent, Seat, SeatOffer, SeatTenure
from games.services import operators, substitutes
from games.services.archive import archived_events
from games.services.clock_views import clocks_shown, deadline_shown, paused_until_shown
from games.services.deadlines import MAX_STEP_SECONDS
from games.services.proposals import proposals_read
from games.services.reads import spectator_reader
from games.services.vacations import VacationState, vacation_end, vacation_state

EVENTS_SHOWN = 500

# --- filters ---------------------------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """Active matches whose public deadline has passed. Not the row's ``deadline`` (the sweep's):
    under ``disclose_submitted: false`` a seat's move can move it, so filtering on it would
    answer, one yes/no at a time, whether a seat has moved. The public one is worked out per
    match (``deadline_shown``), so this reads every active match of the list: fine for an
    operator's page; the sweep itself (games/locks.py) keeps to the row's own."""

    title = "overdue"
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Overdue"), ("no", "Not overdue")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        if self.value() not in ("yes", "no"):
            return queryset
        now = timezone.now()
        overdue = [
            match.pk
            for match in queryset.filter(status=Match.Status.ACTIVE)
            if (deadline := _deadline(match)) is not None and deadline < now
        ]
        if self.value() == "yes":
            return queryset.filter(pk__in=overdue)
        return queryset.exclude(pk__in=overdue)


class PausedFilter(admin.SimpleListFilter):
    """Active matches in a pause their players agreed to (games/services/proposals.py)."""

    title = "paused"
    parameter_name = "paused"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Paused now"), ("no", "Not paused")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        paused = {"status": Match.Status.ACTIVE, "paused_until__gt": timezone.now()}
        if self.value() == "yes":
            return queryset.filter(**paused)
        if self.value() == "no":
            return queryset.exclude(**paused)
        return queryset


class HasBotsFilter(admin.SimpleListFilter):
    title = "bots"
    parameter_name = "has_bots"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "A bot plays a seat"), ("no", "No bot")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        bots = Exists(Seat.objects.filter(match=OuterRef("pk"), controlled_by=Seat.Controller.BOT))
        if self.value() == "yes":
            return queryset.filter(bots)
        if self.value() == "no":
            return queryset.exclude(bots)
        return queryset


# --- operator forms --------------------------------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=operators.MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Required. Written into the match's public events with your username.",
    )

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.match = match


class StepReasonForm(ReasonForm):
    """A change to the open step: refused if the match moved on since the page was shown."""

    step = forms.IntegerField(widget=forms.HiddenInput, required=False)


class ExtendForm(StepReasonForm):
    seconds = forms.IntegerField(min_value=1, max_value=MAX_STEP_SECONDS, initial=3600)


class ReplaceSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)
    bot = forms.ChoiceField()

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        assert match is not None
        seats = match.seats.select_related("user").order_by("index")
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, _seat_label(seat))
            for seat in seats
            if seat.user_id is not None
            and not seat.forfeited
            and seat.controlled_by == Seat.Controller.PLAYER
        ]
        names = sorted(bots_of(match.game))
        self.fields["bot"].choices = [(name, name) for name in names]  # type: ignore[attr-defined]
        if operators.DEFAULT_BOT in names:
            self.fields["bot"].initial = operators.DEFAULT_BOT


class ReturnSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        assert match is not None
        seats = match.seats.select_related("user").order_by("index")
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, _seat_label(seat))
            for seat in seats
            if seat.user_id is not None
            and not seat.forfeited
            and seat.controlled_by == Seat.Controller.BOT
        ]


class OfferSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int)
    invitee = forms.CharField(
        max_length=150,
        required=False,
        help_text="A username; empty: an open seat anyone may take in the lobby.",
    )

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        assert match is not None
        seats = match.seats.select_related("user").order_by("index")
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, _seat_label(seat))
            for seat in seats
            if seat.user_id is not None and seat.forfeited
        ]


class WithdrawOfferForm(ReasonForm):
    offer = forms.TypedChoiceField(coerce=int)

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        assert match is not None
        offers = SeatOffer.objects.filter(match_id=match.pk, status=SeatOffer.Status.OPEN)
        self.fields["offer"].choices = [  # type: ignore[attr-defined]
            (offer.pk, f"{offer.pk}: seat {offer.seat}") for offer in offers.order_by("pk")
        ]


def _seat_label(seat: Seat) -> str:
    player = seat.user.username if seat.user is not None else "—"
    bot = f", bot {seat.bot}" if seat.bot else ""
    return f"{seat.index}: {player}{bot}"


def _do_abort(request: HttpRequest, match: Match, data: dict[str, Any]) -> Match:
    return operators.match_abort(match_id=match.pk, operator=request.user, reason=data["reason"])  # type: ignore[arg-type]


def _do_extend(request: HttpRequest, match: Match, data: dict[str, Any]) -> Match:
    return operators.deadline_extend(
        match_id=match.pk,
        operator=request.user,  # type: ignore[arg-type]
        reason=data["reason"],
        seconds=data["seconds"],
        step=data.get("step"),
    )


def _do_force(request: HttpRequest, match: Match, data: dict[str, Any]) -> Match:
    return operators.step_force_timeout(
        match_id=match.pk,
        operator=request.user,  # type: ignore[arg-type]
        reason=data["reason"],
        step=data.get("step"),
    )


def _do_replace(request: HttpRequest, match: Match, data: dict[str, Any]) -> Match:
    return operators.seat_replace_with_bot(
        match_id=match.pk,
        seat=data["seat"],
        operator=request.user,  # type: ignore[arg-type]
        reason=data["reason"],
        bot=data["bot"],
    )


def _do_return(request: HttpRequest, match: Match, data: dict[str, Any]) -> Match:
    return operators.seat_return(
        match_id=match.pk,
        seat=data["seat"],
        operator=request.user,  # type: ignore[arg-type]
        reason=data["reason"],
    )


def _do_offer(request: HttpRequest, match: Match, data: dict[str, Any]) -> Any:
    return substitutes.offer_make(
        match_id=match.pk,
        user=request.user,  # type: ignore[arg-type]
        seat=data["seat"],
        invitee=data.get("invitee") or None,
        operator=True,
    )


def _do_withdraw_offer(request: HttpRequest, match: Match, data: dict[str, Any]) -> Any:
    return substitutes.offer_answer(
        match_id=match.pk,
        offer_id=data["offer"],
        user=request.user,  # type: ignore[arg-type]
        answer="withdraw",
        operator=True,
    )


Operation = tuple[str, type[ReasonForm], Callable[[HttpRequest, Match, dict[str, Any]], Any]]

#: name → (title, form, call): the buttons of the change page.
OPERATIONS: dict[str, Operation] = {
    "abort": ("Abort the match", ReasonForm, _do_abort),
    "extend": ("Extend the current deadline", ExtendForm, _do_extend),
    "force-timeout": ("Force the timeout now", StepReasonForm, _do_force),
    "replace-seat": ("Hand a seat to a bot", ReplaceSeatForm, _do_replace),
    "return-seat": ("Give a seat back to its player", ReturnSeatForm, _do_return),
    "offer-seat": ("Offer a left seat to a substitute", OfferSeatForm, _do_offer),
    "withdraw-offer": ("Withdraw a seat offer", WithdrawOfferForm, _do_withdraw_offer),
}


# --- the match admin -------------------------------------------------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False)


def _timestamp(value: Any) -> str:
    return timestamp(value) or "—"


def _deadline(match: Match) -> Any:
    """The step's deadline every reader sees: the row's own may be earlier when a seat moved
    under ``disclose_submitted: false``, and would tell an operator which one."""
    return deadline_shown(match, [seat.forfeited for seat in match.seats.all()])


def _span(seconds: float) -> str:
    whole = max(0, int(seconds))
    days, rest = divmod(whole, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    return f"{hours}:{minutes:02d}:{secs:02d}"


def time_control_text(raw: dict[str, Any] | None) -> str:
    """A time control in words: "Fischer: 3d, +1d a move, at most 7d; …"."""
    if not raw:
        return "untimed"
    tc = TimeControl.of(raw)
    clock = {
        "per_step": f"{_span(tc.per_step_seconds)} per step",
        "fischer": f"Fischer: {_span(tc.initial_seconds)}, +{_span(tc.increment_seconds)} "
        f"a move, at most {_span(tc.max_seconds)}",
        "byoyomi": f"byo-yomi: {_span(tc.main_seconds)}, then {tc.periods} x "
        f"{_span(tc.period_seconds)}",
    }[tc.kind]
    timeout = (
        f"a bot ({tc.auto_move_bot}) moves" if tc.on_timeout == "auto_move" else "the seat forfeits"
    )
    parts = [clock, f"on timeout {timeout}"]
    if tc.correspondence:
        parts.append("weekends paused" if tc.weekend_pause else "weekends count")
        parts.append("pauses allowed" if tc.allow_pause else "no pauses")
    return "; ".join(parts)


def _left_now(match: Match, seat: int, remaining: float | None, now: Any) -> str:
    """What a spectator's clock shows now: counted from the stored clock as if its seat had
    not moved (the shown clock hides a sealed stop), or what a stopped clock holds."""
    if remaining is None:
        return "moved (told when the step resolves)"
    clock = (match.clocks or [])[seat]
    since = parse(clock["since"])
    if since is None or since > now or clock["out"] or match.status != Match.Status.ACTIVE:
        return _span(remaining)
    if clock["stop"] is not None and match.disclose_submitted:
        return _span(remaining)
    tc = TimeControl.of(match.time_control or {})
    used = counted_ms(since, now, zone(clock["tz"]))
    bank, periods = spend(tc, clock["bank"], clock["periods"], used)
    left = _span(bank / 1000)
    return f"{left} + {periods} x {_span(tc.period_seconds)}" if tc.kind == "byoyomi" else left


def _running_text(since: str | None, now: Any) -> str:
    at = parse(since)
    if at is None:
        return "stopped"
    return f"held until {since}" if at > now else f"running since {since}"


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "step", "players", "public_deadline", "created_at")
    list_filter = ("game", "status", OverdueFilter, PausedFilter, HasBotsFilter)
    search_fields = ("seats__user__username",)
    #: The only field lookups a changelist URL may use. Django allows filtering on any of the
    #: model's own fields by default, and the answer (1 match or 0) would reveal the secret
    #: seed or the hidden state one yes/no question at a time.
    allowed_lookups = frozenset(
        {"game", "game__exact", "status", "status__exact", "overdue", "paused", "has_bots"}
    )
    search_help_text = "A player's username, or a match id."
    list_per_page = 50
    actions = ("abort_selected", "extend_selected", "force_timeout_selected")
    change_form_template = "admin/games/match/change_form.html"
    fieldsets = (
        (
            "Match",
            {
                "fields": (
                    "id",
                    "game",
                    "options",
                    "status",
                    "protocol",
                    "disclose_submitted",
                    "step",
                    "version",
                    "phase",
                    "time_control",
                    "time_control_words",
                    "paused_until",
                    "created_by",
                    "created_at",
                    "started_at",
                    "finished_at",
                    "scores",
                    "result",
                    "fairness",
                )
            },
        ),
        ("Seats", {"fields": ("seats_table", "clocks_table")}),
        ("Pause and abort by agreement", {"fields": ("proposals_table",)}),
        ("Substitutes", {"fields": ("substitutes_table", "tenures_table")}),
        ("Table (what a spectator sees)", {"fields": ("spectator_view",)}),
        ("Events (public data)", {"fields": ("events_table",)}),
    )
    readonly_fields = (
        "id",
        "game",
        "options",
        "status",
        "protocol",
        "disclose_submitted",
        "step",
        "version",
        "phase",
        "time_control",
        "time_control_words",
        "paused_until",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "scores",
        "result",
        "fairness",
        "seats_table",
        "clocks_table",
        "proposals_table",
        "substitutes_table",
        "tenures_table",
        "spectator_view",
        "events_table",
    )

    # Read-only: no raw add, edit or delete. Operators change matches through the actions.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_operate_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and user.has_perm("games.change_match"))

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        return lookup in self.allowed_lookups

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return (
            super()
            .get_queryset(request)
            .defer("state", "seed")
            .select_related("created_by")
            .prefetch_related(
                Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
            )
        )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Match], search_term: str
    ) -> tuple[QuerySet[Match], bool]:
        import uuid

        try:
            match_id = uuid.UUID(search_term.strip())
        except ValueError:
            return super().get_search_results(request, queryset, search_term)
        return queryset.filter(pk=match_id), False

    # --- list columns ---

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        names = []
        for seat in match.seats.all():
            name = seat.user.username if seat.user is not None else ("" if seat.bot else "open")
            if seat.controlled_by == Seat.Controller.BOT:
                name = f"{name} [bot {seat.bot}]" if name else f"[bot {seat.bot}]"
            if seat.forfeited:
                name += " (forfeited)"
            names.append(name)
        return ", ".join(names)

    @admin.display(description="deadline")
    def public_deadline(self, match: Match) -> str:
        return _timestamp(_deadline(match))

    # --- change page: public information only ---

    @admin.display(description="phase")
    def phase(self, match: Match) -> str:
        if match.status != Match.Status.ACTIVE:
            return "—"
        parts = [f"{match.phase_kind}, to act: {match.to_act or '—'}"]
        if match.disclose_submitted and match.phase_kind != Match.PhaseKind.TURN:
            parts.append(f"submitted: {match.submitted}")
        deadline = _deadline(match)
        parts.append(f"deadline: {_timestamp(deadline)}")
        if deadline is not None and deadline < timezone.now():
            parts.append("OVERDUE")
        return "; ".join(parts)

    @admin.display(description="time control in words")
    def time_control_words(self, match: Match) -> str:
        return time_control_text(match.time_control)

    @admin.display(description="paused until")
    def paused_until(self, match: Match) -> str:
        return paused_until_shown(match) or "—"

    @admin.display(description="clocks (as a spectator sees them)")
    def clocks_table(self, match: Match) -> SafeString | str:
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
                    f"on vacation until {clock['vacation_until']}"
                    if clock["vacation_until"]
                    else "—",
                )
                for clock in shown
            ),
        )
        return format_html(
            '<table class="clocks"><thead><tr><th>seat</th><th>left now</th><th>running</th>'
            "<th>periods left</th><th>runs out</th><th>vacation</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="fairness")
    def fairness(self, match: Match) -> SafeString:
        seed = match.seed if match.is_over else "(published when the match is over)"
        return format_html(
            "seed_sha256: <code>{}</code><br>seed: <code>{}</code>", match.seed_sha256, seed
        )

    @admin.display(description="seats")
    def seats_table(self, match: Match) -> SafeString:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    seat.index,
                    seat.user.username if seat.user is not None else "—",
                    seat.bot or "—",
                    "yes" if seat.forfeited else "no",
                    seat.controlled_by,
                    "yes" if seat.accepted else "no",
                    match.scores[seat.index] if seat.index < len(match.scores) else 0,
                )
                for seat in match.seats.all()
            ),
        )
        return format_html(
            '<table class="seats"><thead><tr><th>index</th><th>player</th><th>bot</th>'
            "<th>forfeited</th><th>controlled by</th><th>accepted</th><th>score</th></tr>"
            "</thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="proposals (the open one and the latest closed ones)")
    def proposals_table(self, match: Match) -> SafeString | str:
        proposals = proposals_read(match, timezone.now())
        if not proposals:
            return "—"
        names = {seat.index: _seat_label(seat) for seat in match.seats.all()}
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
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
        return format_html(
            '<table class="proposals"><thead><tr><th>id</th><th>kind</th><th>proposer</th>'
            "<th>until</th><th>status</th><th>accepted</th><th>proposed</th><th>expires</th>"
            "<th>answered</th><th>answered by</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="seat offers (the open ones and the latest closed ones)")
    def substitutes_table(self, match: Match) -> SafeString | str:
        offers = substitutes.substitutes_read(match)["offers"]
        if not offers:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td></tr>",
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
        return format_html(
            '<table class="seat-offers"><thead><tr><th>id</th><th>seat</th><th>offered by</th>'
            "<th>to</th><th>status</th><th>offered</th><th>answered</th><th>taken by</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="who played which steps (seats that changed hands)")
    def tenures_table(self, match: Match) -> SafeString | str:
        tenures = substitutes.tenures_of(match)
        if not tenures:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    t["seat"],
                    t["player"],
                    t["from_step"],
                    "—" if t["to_step"] is None else t["to_step"],
                )
                for t in tenures
            ),
        )
        return format_html(
            '<table class="tenures"><thead><tr><th>seat</th><th>player</th><th>from step</th>'
            "<th>to step</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="spectator view")
    def spectator_view(self, match: Match) -> SafeString:
        engine = get_engine(match.game)
        state = Match.objects.filter(pk=match.pk).values_list("state", flat=True).get()
        if engine is None or state is None:
            return format_html("<em>{}</em>", "No table yet.")
        return format_html("<pre>{}</pre>", _json(engine.view(state, None)))

    @admin.display(description="events")
    def events_table(self, match: Match) -> SafeString:
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
            '{}<table class="events"><thead><tr><th>seq</th><th>type</th><th>step</th>'
            "<th>at</th><th>data</th></tr></thead><tbody>{}</tbody></table>",
            note,
            rows,
        )

    # --- change page buttons: one small form per operation ---

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<path:object_id>/operate/<slug:operation>/",
                self.admin_site.admin_view(self.operate_view),
                name="{}_{}_operate".format(*info),
            ),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        if self.has_operate_permission(request):
            context["operations"] = [
                (reverse("admin:games_match_operate", args=[object_id, name]), title)
                for name, (title, _, _) in OPERATIONS.items()
            ]
        return super().change_view(request, object_id, form_url, extra_context=context)

    def operate_view(self, request: HttpRequest, object_id: str, operation: str) -> HttpResponse:
        if not self.has_operate_permission(request):
            raise DjangoPermissionDenied
        if operation not in OPERATIONS:
            return HttpResponseRedirect(reverse("admin:games_match_changelist"))
        match = self.get_object(request, object_id)
        if match is None:
            self.message_user(request, f"No match with id {object_id}.", messages.WARNING)
            return HttpResponseRedirect(reverse("admin:games_match_changelist"))
        title, form_class, call = OPERATIONS[operation]
        change_url = reverse("admin:games_match_change", args=[match.pk])
        if request.method == "POST":
            form = form_class(request.POST, match=match)
            if form.is_valid():
                try:
                    call(request, match, form.cleaned_data)
                except FacedownError as exc:
                    _form_errors(form, exc)
                else:
                    message = f"{title}: done. Reason: {form.cleaned_data['reason']}"
                    self.log_change(request, match, message)
                    self.message_user(request, message, messages.SUCCESS)
                    return HttpResponseRedirect(change_url)
        else:
            form = form_class(initial={"step": match.step}, match=match)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": match,
            "title": title,
            "form": form,
            "change_url": change_url,
            "operation": operation,
        }
        return TemplateResponse(request, "admin/games/match/operate.html", context)

    # --- list actions: an intermediate page asks for the reason ---

    def _bulk(
        self,
        request: HttpRequest,
        queryset: QuerySet[Match],
        *,
        action: str,
        title: str,
        form_class: type[ReasonForm],
        call: Callable[[HttpRequest, Match, dict[str, Any]], Match],
    ) -> HttpResponse | None:
        form = form_class(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            done, failed = 0, []
            for match in queryset:
                try:
                    call(request, match, {**form.cleaned_data, "step": None})
                except FacedownError as exc:
                    failed.append(f"{match.pk}: {exc.detail}")
                else:
                    done += 1
                    self.log_change(
                        request, match, f"{title}: done. Reason: {form.cleaned_data['reason']}"
                    )
            if done:
                self.message_user(request, f"{title}: {done} match(es).", messages.SUCCESS)
            for failure in failed:
                self.message_user(request, f"{title}: refused for {failure}", messages.ERROR)
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "form": form,
            "queryset": queryset,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/games/match/action_form.html", context)

    @admin.action(description="Abort the selected matches", permissions=["operate"])
    def abort_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return self._bulk(
            request,
            queryset,
            action="abort_selected",
            title="Abort",
            form_class=ReasonForm,
            call=_do_abort,
        )

    @admin.action(description="Extend the current deadline", permissions=["operate"])
    def extend_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return self._bulk(
            request,
            queryset,
            action="extend_selected",
            title="Extend the deadline",
            form_class=ExtendForm,
            call=_do_extend,
        )

    @admin.action(description="Force the timeout of the current step now", permissions=["operate"])
    def force_timeout_selected(self, request: HttpRequest, queryset: QuerySet[Match]) -> Any:
        return self._bulk(
            request,
            queryset,
            action="force_timeout_selected",
            title="Force the timeout",
            form_class=StepReasonForm,
            call=_do_force,
        )


def _event_data(data: Any) -> SafeString | str:
    if data is None:
        return "—"
    return format_html("<code>{}</code>", json.dumps(data, sort_keys=True))


def _form_errors(form: forms.Form, exc: FacedownError) -> None:
    errors = exc.extra.get("errors") or {}
    if not errors:
        form.add_error(None, exc.detail)
        return
    for field, problems in errors.items():
        target = field if field in form.fields else None
        for problem in problems:
            form.add_error(target, problem)


# --- users: the vacation (games.services.vacations; accounts may not import games) -------------

admin.site.unregister(User)


@admin.register(SeatOffer)
class SeatOfferAdmin(admin.ModelAdmin):
    """Every seat offered to a substitute (games/services/substitutes.py): read-only; an
    operator withdraws open ones through the service (the action), or offers a seat from the
    match's page."""

    list_display = ("id", "match", "seat", "offered_by", "invitee", "status", "taken_by")
    list_filter = ("status",)
    search_fields = ("invitee__username", "offered_by__username", "taken_by__username")
    readonly_fields = [f.name for f in SeatOffer._meta.fields]
    list_select_related = ("offered_by", "invitee", "taken_by")
    actions = ("withdraw_selected",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Withdraw the selected open offers")
    def withdraw_selected(self, request: HttpRequest, queryset: QuerySet[SeatOffer]) -> None:
        done, failed = 0, []
        for offer in queryset.filter(status=SeatOffer.Status.OPEN):
            try:
                substitutes.offer_answer(
                    match_id=offer.match_id,
                    offer_id=offer.pk,
                    user=request.user,  # type: ignore[arg-type]
                    answer="withdraw",
                    operator=True,
                )
            except FacedownError as exc:
                failed.append(f"{offer.pk}: {exc.detail}")
            else:
                done += 1
        if done:
            self.message_user(request, f"Withdrawn: {done} offer(s).", messages.SUCCESS)
        for failure in failed:
            self.message_user(request, f"Refused for {failure}", messages.ERROR)


@admin.register(SeatTenure)
class SeatTenureAdmin(admin.ModelAdmin):
    """Who played which steps of the seats that changed hands."""

    list_display = ("match", "seat", "user", "from_step", "to_step")
    search_fields = ("user__username",)
    readonly_fields = [f.name for f in SeatTenure._meta.fields]
    list_select_related = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(User)
class UserVacationAdmin(FacedownUserAdmin):
    """The user admin of accounts/admin.py with the vacation: its state on the user's page and
    an action that ends it (the unused days go back to the bank, the clocks count again)."""

    actions = (*FacedownUserAdmin.actions, "end_vacations")

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is None else (*fieldsets, ("Vacation", {"fields": ("vacation",)}))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return (*super().get_readonly_fields(request, obj), "vacation")

    @admin.display(description="vacation")
    def vacation(self, user: User) -> str:
        return vacation_text(vacation_state(user))

    @admin.action(description="End the vacation of the selected users", permissions=["change"])
    def end_vacations(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        ended = 0
        for user in queryset:
            try:
                vacation_end(user=user)
            except VacationConflict:
                continue  # not on vacation
            ended += 1
            self.log_change(request, user, "Vacation ended.")
        self.message_user(request, f"{ended} vacation(s) ended.", messages.SUCCESS)


def vacation_text(state: VacationState) -> str:
    bank = f"bank {state.bank_seconds / 86_400:.1f} days"
    away = f"on vacation until {timestamp(state.until)}" if state.until else "not on vacation"
    auto = "automatic vacation on" if state.auto_vacation else "automatic vacation off"
    return f"{away}; {bank}; {auto}; time zone {state.time_zone}"
