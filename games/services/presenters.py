"""What a viewer sees of a match: the match resource, the list's summaries and the event
feed, shaped from what ``games.services.reads`` selected (the engine's ``view`` for the
viewer, event data redacted for that viewer). No query is written here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from games.events import Reader, event_for, timestamp
from games.models import Match, MatchEvent, Seat
from games.services import bodies
from games.services.clocks_shown import clocks_shown, deadline_shown, paused_until_shown
from games.services.conditional_rules import conditional_offered
from games.services.reads import (
    EVENTS_PAGE,
    ListedMatch,
    MatchSnapshot,
    event_rows,
    last_move_step,
    listed_seats,
    match_state,
    own_recorded_move,
)
from games.services.steps import phase_public


def listed_resources(page: list[ListedMatch], viewer: int | None) -> list[bodies.MatchSummary]:
    """The page's matches as ``match_resource(snapshot_of(match, viewer), detail=False)``
    shows them, built from rows: one query for every seat of the page, no model instances."""
    return [
        _listed_resource(listed, seats, viewer)
        for listed, seats in zip(page, listed_seats(page), strict=True)
    ]


def _listed_resource(
    match: ListedMatch, seats: list[tuple[Any, ...]], viewer: int | None
) -> bodies.MatchSummary:
    """``match_resource(..., detail=False)`` for a listed match: the same keys in the same
    order (tests/api/test_match_list.py compares the two)."""
    scores = match.scores
    you = next((seat[1] for seat in seats if seat[2] == viewer), None)
    return {
        **_match_head(match),
        "seats": [
            {
                "index": index,
                "player": username,
                "bot": bot or None,
                "accepted": bool(accepted),
                "score": scores[index] if index < len(scores) else 0,
                "forfeited": bool(forfeited),
                "controlled_by": cast(bodies.ControlledBy, controlled_by),
            }
            for _, index, _, username, bot, accepted, forfeited, controlled_by, _ in seats
        ],
        "you": you,
        "created_by": match.created_by,
        "created_at": cast(str, timestamp(match.created_at)),
        "started_at": timestamp(match.started_at),
        "finished_at": timestamp(match.finished_at),
        "phase": {
            "kind": cast(bodies.PhaseKind, match.phase_kind),
            "to_act": Match.seats_of(match.acting_mask),
            "deadline": timestamp(deadline_shown(match, [bool(seat[6]) for seat in seats])),
            "submitted": _submitted_shown(match, you),
            "your_move": None,
        },
        **_match_clocks(match, you, [_aware(seat[8]) for seat in seats]),
        **_match_outcome(match),
        "fairness": {"seed_sha256": match.seed_sha256, "seed": match.seed},
    }


def _match_head(match: Match | ListedMatch) -> bodies.MatchHead:
    """The first keys of a match resource, the same for the detail and the list."""
    return {
        "id": str(match.id),
        "game": match.game,
        "options": match.options,
        "protocol": match.protocol,
        "disclose_submitted": match.disclose_submitted,
        "chat": match.chat,
        "status": cast(bodies.Status, match.status),
        "version": match.version,
        "step": match.step,
    }


def _aware(value: datetime | str | None) -> datetime | None:
    """A timestamp from the list's plain SQL: SQLite returns the text Django stored (UTC)."""
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def _match_clocks(
    match: Match | ListedMatch, you: int | None, held_until: list[datetime | None]
) -> bodies.MatchClocks:
    return {
        "time_control": match.time_control,
        "clocks": clocks_shown(match, you, held_until),
        "paused_until": paused_until_shown(match),
        "proposal": match.proposal if match.status == Match.Status.ACTIVE else None,
    }


def _match_outcome(match: Match | ListedMatch) -> bodies.MatchOutcome:
    series: bodies.SeriesRef | None = None
    if match.series_id:
        series = {"id": str(match.series_id), "index": cast(int, match.series_index)}
    return {
        "result": match.result,
        "rated": match.rated,
        "rematch": str(match.rematch_id) if match.rematch_id else None,
        "series": series,
    }


def _submitted_shown(match: Match | ListedMatch, you: int | None) -> list[int]:
    """The seats a viewer sees as having submitted in the open step: every one when the
    match discloses submissions, else only the viewer's own (hidden information)."""
    if match.phase_kind == Match.PhaseKind.TURN:
        return []
    if match.disclose_submitted:
        return Match.seats_of(match.submitted_mask)
    if you is not None and match.submitted_mask >> you & 1:
        return [you]
    return []


def _seat_resource(seat: Seat, scores: list[int]) -> bodies.Seat:
    return {
        "index": seat.index,
        "player": seat.user.username if seat.user is not None else None,
        "bot": seat.bot or None,
        "accepted": seat.accepted,
        "score": scores[seat.index] if seat.index < len(scores) else 0,
        "forfeited": seat.forfeited,
        "controlled_by": cast(bodies.ControlledBy, seat.controlled_by),
    }


def _phase(snapshot: MatchSnapshot, your_move: Any) -> bodies.Phase:
    match = snapshot.match
    public = phase_public(match, snapshot.seats)
    return {
        "kind": cast(bodies.PhaseKind, public["kind"]),
        "to_act": public["to_act"],
        "deadline": public["deadline"],
        "submitted": _submitted_shown(match, snapshot.you),
        "your_move": your_move,
    }


def _your_move(snapshot: MatchSnapshot, state: Any) -> Any:
    """The viewer's own recorded move in the open step, if the game shows it back to them."""
    if not snapshot.own_submitted or snapshot.you is None or state is None:
        return None
    recorded = own_recorded_move(snapshot, snapshot.you)
    if recorded is not None and snapshot.engine.echoes(state, recorded):
        return recorded
    return None


def match_resource(snapshot: MatchSnapshot, *, detail: bool = True) -> bodies.MatchSummary:
    """The match as docs/api.md ("Read") describes it, for the snapshot's viewer: a
    ``bodies.Match`` with ``detail``, else a ``bodies.MatchSummary``.

    With ``detail`` the engine state is read too (``match_state``), which may renew
    ``snapshot`` when a change raced the read: take the ETag from the snapshot afterwards.
    """
    state = match_state(snapshot) if detail else None
    match = snapshot.match
    summary: bodies.MatchSummary = {
        **_match_head(match),
        "seats": [_seat_resource(seat, match.scores) for seat in snapshot.seats],
        "you": snapshot.you,
        "created_by": match.created_by.username if match.created_by is not None else "",
        "created_at": cast(str, timestamp(match.created_at)),
        "started_at": timestamp(match.started_at),
        "finished_at": timestamp(match.finished_at),
        "phase": _phase(snapshot, _your_move(snapshot, state) if detail else None),
        **_match_clocks(match, snapshot.you, [seat.held_until for seat in snapshot.seats]),
        **_match_outcome(match),
        "fairness": {
            "seed_sha256": match.seed_sha256,
            "seed": match.seed if match.is_over else None,
        },
    }
    if not detail:
        return summary
    body: bodies.Match = {
        **summary,
        "legal_moves": _legal_moves(snapshot, state),
        "view": _view(snapshot, state),
        "conditional_moves": conditional_offered(match.game, match.protocol, match.time_control),
    }
    return body


def _view(snapshot: MatchSnapshot, state: Any) -> Any:
    """The engine's view for the viewer. A match ended by forfeit (or aborted) stops before
    the rules end it, so its state still says it is running: its view says ``over`` like the
    match's ``status``."""
    if state is None:
        return None
    view = snapshot.engine.view(state, snapshot.you)
    if snapshot.match.is_over and isinstance(view, dict) and "over" in view:
        view["over"] = True
    return view


def _legal_moves(snapshot: MatchSnapshot, state: Any) -> list[dict[str, Any]]:
    match, you = snapshot.match, snapshot.you
    if (
        you is None
        or state is None
        or match.status != Match.Status.ACTIVE
        or match.phase_kind == Match.PhaseKind.REVEAL
        or not match.acting_mask >> you & 1
        or snapshot.own_submitted
        or snapshot.seats[you].forfeited
    ):
        return []
    return snapshot.engine.legal_moves(state, you)


def events_for_viewer(
    *, snapshot: MatchSnapshot, after: int, limit: int = EVENTS_PAGE
) -> tuple[list[bodies.Event], bool]:
    """Events after ``after`` (exclusive), redacted for the viewer, and whether more follow."""
    match = snapshot.match
    rows = event_rows(snapshot, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    reader = Reader(seat=snapshot.you, table_only_from=_table_only_horizon(snapshot, rows))
    return events_shown(rows, reader, over=match.is_over), more


def events_shown(rows: list[MatchEvent], reader: Reader, *, over: bool) -> list[bodies.Event]:
    """The rows as ``reader`` reads them in the event feed (and in the streams)."""
    shown = [event_for(row, reader) for row in rows]
    if over:
        # A submission's time is hidden while the match runs (it tells when a seat moved);
        # once the match is over every move is public, so its time is too.
        for row, event in zip(rows, shown, strict=True):
            if event["at"] is None:
                event["at"] = timestamp(row.at)
    return cast(list[bodies.Event], shown)


def seat_reader_at_commit(match: Match, seat: int, moved_steps: list[int]) -> Reader:
    """What seat ``seat`` may read of the events a change just wrote, as ``events_for_viewer``
    would answer right after the commit. ``moved_steps``: the steps of the seat's moves in
    that change. The horizon is the seat's last move; its earlier moves are in steps no later
    than the change's events, so only this change's moves can hide any of them."""
    if match.is_over:
        return Reader(seat=seat)
    return Reader(seat=seat, table_only_from=max(moved_steps, default=0))


def spectator_reader(match: Match) -> Reader:
    """What a spectator (and an operator) may read of the match's events now."""
    return Reader(table_only_from=None if match.is_over else match.step - 1)


def _table_only_horizon(snapshot: MatchSnapshot, rows: list[MatchEvent]) -> int | None:
    """The oldest step whose table-only events the viewer may still read (None: all).

    A seat reads a table-only action until its own next move; a spectator until the next step
    resolves. Once the match is over every event is readable, as in the audit.
    """
    match = snapshot.match
    if match.is_over or not any(row.table_only for row in rows):
        return None
    if snapshot.you is None:
        return match.step - 1
    return last_move_step(match, snapshot.you)
