"""The catalogue of games: ``GET /games`` and ``GET /games/{slug}`` (public)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cardgames.engines.protocol import Engine
from core.errors import NotFound
from games.api.serializers import GameOutput
from games.catalog import GAMES, engines, get_engine


def game_resource(engine: Engine) -> dict[str, Any]:
    record = GAMES[engine.slug]
    bots = []
    for name, bot in sorted(record.bots.items()):
        note = record.bot_note(name)
        bots.append(
            {
                "name": name,
                "options": bot.options_schema,
                "description": note.description,
                "strength": note.strength.as_json() if note.strength else None,
            }
        )
    return {
        "slug": engine.slug,
        "name": engine.name,
        "players": {"min": engine.min_players, "max": engine.max_players},
        "options": record.options_schema(),
        "bots": bots,
    }


class GameListApi(APIView):
    throttle_scope = "reads"
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: GameOutput(many=True)}, tags=["games"])
    def get(self, request: Request) -> Response:
        return Response([game_resource(engine) for engine in engines()])


class GameDetailApi(APIView):
    throttle_scope = "reads"
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: GameOutput}, tags=["games"])
    def get(self, request: Request, slug: str) -> Response:
        engine = get_engine(slug)
        if engine is None:
            raise NotFound(gettext_noop("No game with this slug."))
        return Response(game_resource(engine))
