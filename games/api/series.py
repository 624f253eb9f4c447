"""Series: ``POST /series`` and ``GET /series/{id}``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import IDEMPOTENCY_HEADER, PROBLEM
from games.api import serializers as s
from games.api.idempotent import idempotent
from games.services.series import series_create, series_read


class SeriesListApi(APIView):
    throttle_scope = {"POST": "match_create"}
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.SeriesCreateInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.SeriesOutput, 400: PROBLEM, 403: PROBLEM, 409: PROBLEM, 429: PROBLEM},
        tags=["series"],
        description=(
            "Create a series of `matches` matches, played one after another: the first match "
            "is created as by POST /matches (same fields); each next match is created and "
            "started when the previous one finishes, with the same players, each one seat on."
        ),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.SeriesCreateInput, request)
        series = series_create(creator=requester(request), **data)
        response = Response(series_read(series.id), status=status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/series/{series.id}")
        return response


class SeriesDetailApi(APIView):
    throttle_scope = "reads"

    @extend_schema(
        responses={200: s.SeriesOutput, 404: PROBLEM},
        tags=["series"],
        description="The series' matches so far and the cumulative standings.",
    )
    def get(self, request: Request, series_id: str) -> Response:
        return Response(series_read(series_id))
