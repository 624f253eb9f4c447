"""Match endpoints. Each view validates its input, calls one service, and renders the match
through ``games.services.presenters`` (the engine's per-viewer view)."""

from __future__ import annotations

import hashlib
import json
import re
from base64 import b64decode
from typing import Any, cast
from urllib.parse import parse_qs

from django.utils.cache import patch_vary_headers
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound as PageNotFound
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import IDEMPOTENCY_HEADER, IF_NONE_MATCH, PROBLEM
from core.api.throttles import SIGNED_IN_THROTTLES
from core.openapi import operation_id
from games.api import serializers as s
from games.api.body_schemas import shape
from games.api.idempotent import idempotent
from games.api.params import game_slugs, match_id_or_404, param_choice, param_flag, param_int
from games.catalog import engines
from games.models import Match
from games.routers import replica_or_primary
from games.services import bodies, presenters, reads
from games.services.audit import audit_transcript
from games.services.matches import match_create, match_decline, match_join, match_resign
from games.services.moves import move_submit, reveal_submit

#: The largest ``after`` the events list accepts (``seq`` is a PostgreSQL ``integer``).
MAX_SEQ = 2**31 - 1
#: The longest long-poll ``wait`` (seconds).
MAX_WAIT = 30


_ASCII_DIGITS = re.compile(r"[0-9]{1,9}", re.ASCII)


def match_response(request: Request, match_id: Any, code: int = status.HTTP_200_OK) -> Response:
    snapshot = reads.match_snapshot(match_id=match_id, user=requester(request))
    response = Response(presenters.match_resource(snapshot), status=code)
    response["ETag"] = snapshot.etag
    patch_vary_headers(response, ("Authorization", "Cookie"))
    return response


class MatchPagination(CursorPagination):
    ordering = ("-created_at",)
    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"

    def get_page_size(self, request: Any) -> int:
        return param_int(
            request.query_params,
            "page_size",
            default=self.page_size,
            low=1,
            high=self.max_page_size,
        )

    def decode_cursor(self, request: Any) -> Any:
        """DRF's decoding, after a check of every token: a forged cursor is ``not_found``,
        never a non-ASCII number or a malformed timestamp sent to the database."""
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is not None and not _cursor_is_sound(encoded):
            raise PageNotFound(self.invalid_cursor_message)
        return super().decode_cursor(request)

    def get_paginated_response(self, data: Any) -> Response:
        return Response({"results": data, "next": self.get_next_link()})


def _cursor_is_sound(encoded: str) -> bool:
    try:
        tokens = parse_qs(b64decode(encoded.encode("ascii")).decode("ascii"))
        position = tokens.get("p", [None])[0]
        when = parse_datetime(position) if position is not None else None
    except ValueError:  # also binascii.Error and UnicodeError
        return False
    numbers = (tokens.get(name, ["0"])[0] for name in ("o", "r"))
    return all(_ASCII_DIGITS.fullmatch(n) for n in numbers) and (
        position is None or (when is not None and when.tzinfo is not None)
    )


class _PageQuery:
    """What DRF's ``CursorPagination.paginate_queryset`` does to a queryset (an ordering, the
    cursor's position filter, a slice), done to the match list without a queryset: the page
    comes from ``reads.match_page``, whose SQL is compiled once per process, and DRF's own
    code still decides the page, the extra row and the next cursor. Anything else DRF might
    ask of it is refused, never guessed."""

    def __init__(
        self,
        filters: reads.ListFilters,
        ordering: str = "-created_at",
        bound: tuple[str, Any] | None = None,
    ) -> None:
        self.filters, self.ordering, self.bound = filters, ordering, bound

    def order_by(self, *fields: str) -> _PageQuery:
        if len(fields) != 1:
            raise TypeError(f"the match list is ordered by one field, not {fields!r}")
        return _PageQuery(self.filters, fields[0], self.bound)

    def filter(self, **lookups: Any) -> _PageQuery:
        ((lookup, position),) = lookups.items()
        field, _, kind = lookup.partition("__")
        if field != "created_at" or self.bound is not None:
            raise TypeError(f"the match list is not filtered by {lookup!r}")
        return _PageQuery(self.filters, self.ordering, (kind, position))

    def __getitem__(self, window: slice) -> list[reads.ListedMatch]:
        if not isinstance(window, slice) or window.step is not None:
            raise TypeError("the match list is read a page at a time")
        return reads.match_page(
            self.filters,
            ordering=self.ordering,
            bound=self.bound,
            low=window.start or 0,
            high=window.stop,
        )


class MatchListApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "match_create"}
    token_scope = scopes.PLAY

    @extend_schema(
        # Named, or it collides with GET /matches/{match_id} (drf_spectacular.W001, which
        # `manage.py check --deploy` reports).
        operation_id=operation_id("/api/v1/matches", "list"),
        parameters=[
            OpenApiParameter("status", str, enum=Match.Status.values),
            OpenApiParameter("mine", bool),
            OpenApiParameter(
                "awaiting_me", bool, description="Active matches waiting for your move."
            ),
            OpenApiParameter(
                "invited",
                bool,
                description="Open matches inviting you, not yet answered (join or decline).",
            ),
            OpenApiParameter(
                "game", str, enum=game_slugs(), description="A game's slug (GET /games)."
            ),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1, "maximum": MatchPagination.max_page_size},
                description="Default 50.",
            ),
            OpenApiParameter("cursor", str, description="From a page's `next` link."),
            IF_NONE_MATCH,
        ],
        responses={
            200: shape(bodies.MatchPage),
            304: None,
            400: OpenApiResponse(description="validation_error: a bad query parameter value."),
            404: OpenApiResponse(description="not_found: an invalid cursor."),
        },
        tags=["matches"],
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        wanted = param_choice(params, "status", Match.Status.values)
        user = requester(request)
        filters = reads.ListFilters(
            user_id=user.pk,
            status=wanted,
            mine=param_flag(params, "mine"),
            awaiting_me=param_flag(params, "awaiting_me"),
            invited=param_flag(params, "invited"),
            game=param_choice(params, "game", [engine.slug for engine in engines()]),
        )
        paginator = MatchPagination()

        def listed() -> list[Any]:
            # DRF's stubs want a queryset: ``_PageQuery`` is one as far as DRF goes.
            query = cast(Any, _PageQuery(filters))
            page: list[reads.ListedMatch] = (
                paginator.paginate_queryset(query, request, view=self) or []
            )
            return presenters.listed_resources(page, user.pk)

        # Matches that are over change no more: their list may be a few seconds stale, so it
        # reads from the read replica when it may serve this reader (games/routers.py).
        over = wanted in (Match.Status.FINISHED, Match.Status.ABORTED)
        results = replica_or_primary(listed) if over else listed()
        response = paginator.get_paginated_response(results)
        return _conditional(request, response, _list_etag(request, response.data))

    @extend_schema(
        request=s.MatchCreateInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={
            201: shape(bodies.Match),
            400: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
            429: PROBLEM,
        },
        tags=["matches"],
        description="Named seats (`user`) are invitations: each invitee accepts (`join`) or "
        "declines. 403 `invitation_refused` (an invitee's settings), 429 "
        "`invitations_exhausted` (the hourly budget from you to an invitee). A match of people "
        "and bot accounts is `rated: false` from the start.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.MatchCreateInput, request)
        match = match_create(creator=requester(request), **data)
        response = match_response(request, match.id, status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/matches/{match.id}")
        return response


class MatchDetailApi(APIView):
    throttle_scope = "reads"
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        parameters=[OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER)],
        responses={200: shape(bodies.Match), 304: None, 404: PROBLEM},
        tags=["matches"],
    )
    def get(self, request: Request, match_id: str) -> Response:
        condition = request.META.get("HTTP_IF_NONE_MATCH")
        # Unconditional: the engine state in the same query. Conditional (a poll, mostly
        # answered 304): without it, and read after the snapshot only if the ETag differs.
        read = reads.match_snapshot_read(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            with_state=condition is None,
        )
        if condition is not None and _etag_matches(condition, etag := read.etag()):
            # Decided from the rows' columns: no model instance, no engine state.
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            snapshot = read.snapshot()
            response = Response(presenters.match_resource(snapshot))
            etag = snapshot.etag  # after the body: a raced read renews it
        response["ETag"] = etag
        patch_vary_headers(response, ("Authorization", "Cookie"))
        return response


def _list_etag(request: Request, page: dict[str, Any]) -> str:
    """From what the page shows the requester: each match's id, public version, their seat and
    the submissions they may see (their own at least), and the next link. Nothing hidden."""
    basis = [request.get_full_path(), page["next"]] + [
        [r["id"], r["version"], r["status"], r["you"], r["phase"]["submitted"]]
        for r in page["results"]
    ]
    return _etag_of(basis)


def _events_etag(snapshot: reads.MatchSnapshot, after: int) -> str:
    """From the numbers the reader sees: the match's public version and ``last_seq`` (both in
    the answer), their seat and own submission (what the redaction depends on), ``after``."""
    match = snapshot.match
    own = int(snapshot.own_submitted)
    return _etag_of(
        ["events", str(match.id), match.version, match.last_seq, snapshot.you, own, after]
    )


def _etag_of(basis: Any) -> str:
    digest = hashlib.sha256(json.dumps(basis, separators=(",", ":")).encode()).hexdigest()
    return f'"{digest[:32]}"'


def _conditional(request: Request, response: Response, etag: str) -> Response:
    """``304`` when the client's ``If-None-Match`` names this answer's ETag."""
    if _etag_matches(request.META.get("HTTP_IF_NONE_MATCH"), etag):
        response = Response(status=status.HTTP_304_NOT_MODIFIED)
    response["ETag"] = etag
    patch_vary_headers(response, ("Authorization", "Cookie"))
    return response


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    candidates = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in candidates or etag in candidates


class MatchJoinApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.JoinInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: shape(bodies.Match), 409: PROBLEM},
        tags=["matches"],
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data = validated(s.JoinInput, request)
        match = match_join(match_id=match_id_or_404(match_id), user=requester(request), **data)
        return match_response(request, match.id)


class MatchDeclineApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.MatchDeclineInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: shape(bodies.Match), 403: PROBLEM, 409: PROBLEM},
        tags=["matches"],
        description="Refuse the invitation, with an optional `reason` (the challenges' list, "
        "docs/programs.md): the match is aborted, its `match_aborted` event says why.",
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data = validated(s.MatchDeclineInput, request)
        match = match_decline(match_id=match_id_or_404(match_id), user=requester(request), **data)
        return match_response(request, match.id)


class MatchResignApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=None,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: shape(bodies.Match), 403: PROBLEM, 409: PROBLEM},
        tags=["matches"],
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        match = match_resign(match_id=match_id_or_404(match_id), user=requester(request))
        return match_response(request, match.id)


class MatchMovesApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        request=s.MoveInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={
            202: shape(bodies.MoveAnswer),
            200: OpenApiResponse(
                shape(bodies.MoveAnswer), description="An identical re-post: the original receipt."
            ),
            400: PROBLEM,
            403: PROBLEM,
            404: PROBLEM,
            409: PROBLEM,
        },
        tags=["matches"],
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data = s.MoveInput.fast(request.data) or validated(s.MoveInput, request)
        accepted = move_submit(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            step=data["step"],
            move=data.get("move"),
            commitment=data.get("commitment"),
        )
        code = status.HTTP_200_OK if accepted.repeated else status.HTTP_202_ACCEPTED
        response = Response(accepted.as_dict(), status=code)
        # A retry of a secret move is replayed whatever its body: comparing would be an oracle.
        response.idempotency_blind = accepted.secret  # type: ignore[attr-defined]
        return response


class MatchRevealsApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.RevealInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={
            202: shape(bodies.MoveAnswer),
            200: OpenApiResponse(
                shape(bodies.MoveAnswer), description="An identical re-post: the original receipt."
            ),
            409: PROBLEM,
        },
        tags=["matches"],
        description="Commit-reveal matches only; a sealed match answers 409 wrong_phase.",
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data = validated(s.RevealInput, request)
        accepted = reveal_submit(
            match_id=match_id_or_404(match_id),
            user=requester(request),
            step=data["step"],
            move=data["move"],
            salt=data["salt"],
        )
        code = status.HTTP_200_OK if accepted.repeated else status.HTTP_202_ACCEPTED
        response = Response(accepted.as_dict(), status=code)
        response.idempotency_blind = accepted.secret  # type: ignore[attr-defined]
        return response


class MatchEventsApi(APIView):
    throttle_scope = "reads"
    throttle_classes = SIGNED_IN_THROTTLES

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": MAX_SEQ},
                description="Exclusive; default 0.",
            ),
            IF_NONE_MATCH,
            OpenApiParameter(
                "wait",
                {"type": "integer", "minimum": 0, "maximum": MAX_WAIT},
                description=(
                    "Long-poll: on the ASGI server (docs/live.md), when no event follows "
                    "`after`, wait up to this many seconds for one before answering (an empty "
                    "page when none came). The WSGI server answers at once. Default 0."
                ),
            ),
        ],
        responses={200: shape(bodies.EventPage), 304: None, 400: PROBLEM, 404: PROBLEM},
        tags=["matches"],
    )
    def get(self, request: Request, match_id: str) -> Response:
        after = param_int(request.query_params, "after", default=0, low=0, high=MAX_SEQ)
        # Validated here for both servers; the ASGI server's live.longpoll does the waiting.
        param_int(request.query_params, "wait", default=0, low=0, high=MAX_WAIT)
        snapshot = reads.match_snapshot(match_id=match_id_or_404(match_id), user=requester(request))
        events, more = presenters.events_for_viewer(snapshot=snapshot, after=after)
        next_url = None
        if more:
            next_url = request.build_absolute_uri(f"{request.path}?after={events[-1]['seq']}")
        body = {"results": events, "next": next_url, "last_seq": snapshot.match.last_seq}
        return _conditional(request, Response(body), _events_etag(snapshot, after))


class MatchAuditApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The facedown-transcript-v1 transcript (docs/fairness.md).",
            ),
            404: PROBLEM,
            409: PROBLEM,
        },
        tags=["matches"],
        description=(
            "Everything needed to recompute the deal and replay every move: seed, client "
            "seeds, moves with salts and signed receipts, events. Finished and aborted matches "
            "only (else 409 match_not_finished). Check it with `python -m games.verify`."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        return Response(audit_transcript(match_id=match_id_or_404(match_id)))
