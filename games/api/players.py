"""Public reads about players: ``GET /games/{slug}/leaderboard`` and ``GET /players/{name}``."""

from __future__ import annotations

from urllib.parse import urlencode

from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.schema import PROBLEM
from core.errors import NotFound
from games.api import serializers as s
from games.api.params import lookup_text, param_flag, param_int
from games.routers import replica_or_primary
from games.services.profiles import leaderboard, player_profile

#: Django's ``AbstractUser.username`` length: a longer name names no player.
USERNAME_MAX_LENGTH = 150

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


class LeaderboardApi(APIView):
    throttle_scope = "reads"
    # Public: no credentials are read, so a stale or deactivated token changes nothing.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                description=f"Default {PAGE_SIZE}.",
            ),
            OpenApiParameter("cursor", str, description="From a page's `next` link."),
            OpenApiParameter(
                "bots", bool, description="The bot accounts' own ranking instead of people's."
            ),
        ],
        responses={200: s.LeaderboardPageOutput, 400: PROBLEM, 404: PROBLEM},
        tags=["players"],
        description=(
            "The game's ranked players (enough rated matches against enough different "
            "opponents: docs/api.md, Ratings), best rating first (the shown `rating` is "
            "1500 + 50 x openskill's ordinal, mu - 3 sigma, which is kept beside it; ties by "
            "account age). Public. 404 for an unknown game or an invalid cursor."
        ),
    )
    def get(self, request: Request, slug: str) -> Response:
        size = param_int(
            request.query_params, "page_size", default=PAGE_SIZE, low=1, high=MAX_PAGE_SIZE
        )
        # Ratings change only as matches finish: a page a few seconds old is right (and a
        # player's own finished match is there: games/routers.py).
        entries, cursor = replica_or_primary(
            lambda: leaderboard(
                game=slug,
                cursor=request.query_params.get("cursor"),
                page_size=size,
                bots=param_flag(request.query_params, "bots"),
            )
        )
        next_url = None
        if cursor is not None:
            query = urlencode({"cursor": cursor, "page_size": size})
            if param_flag(request.query_params, "bots"):
                query += "&bots=true"
            next_url = request.build_absolute_uri(f"{request.path}?{query}")
        return Response({"results": entries, "next": next_url})


class PlayerApi(APIView):
    throttle_scope = "reads"
    # Public: no credentials are read, so a stale or deactivated token changes nothing.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: s.PlayerOutput, 404: PROBLEM},
        tags=["players"],
        description=(
            "A player's public profile: rating, matches played and won per game, the current "
            "streak and the latest finished matches. Public; closed accounts are not found."
        ),
    )
    def get(self, request: Request, username: str) -> Response:
        name = lookup_text(username, max_length=USERNAME_MAX_LENGTH)
        if name is None:
            raise NotFound(gettext_noop("No player with this name."))
        return Response(replica_or_primary(lambda: player_profile(name)))
