"""Seek and chat endpoints: validate, call one service, render (docs/api.md)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.utils.translation import gettext_noop
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.answers import AnswerFamily, answer_api
from core.api.input import validated
from core.api.schema import IDEMPOTENCY_HEADER, PROBLEM
from core.errors import NotFound
from core.openapi import operation_id
from games.api.idempotent import idempotent
from games.api.matches import MAX_SEQ
from games.api.params import game_slugs, match_id_or_404, param_choice, param_int
from games.catalog import engines
from social import challenges, chat, seeks
from social.api import serializers as s


def _seek_id(raw: str) -> uuid.UUID:
    try:
        return match_id_or_404(raw)
    except NotFound:
        raise NotFound(gettext_noop("No seek with this id.")) from None


class SeekListApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "match_create"}
    token_scope = scopes.PLAY

    @extend_schema(
        parameters=[OpenApiParameter("game", str, enum=game_slugs(), description="A game's slug.")],
        responses={200: s.SeekPageOutput, 400: PROBLEM},
        tags=["seeks"],
        operation_id=operation_id("/api/v1/seeks", "list"),
        description="Every open seek, oldest first.",
    )
    def get(self, request: Request) -> Response:
        game = param_choice(request.query_params, "game", [e.slug for e in engines()])
        found = seeks.seeks_open(game=game)[:200]
        return Response({"results": [seeks.seek_resource(seek) for seek in found]})

    @extend_schema(
        request=s.SeekInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.SeekOutput, 400: PROBLEM, 409: PROBLEM},
        tags=["seeks"],
        description=(
            "Queue a seek. If enough equal seeks (game, players, options, time control) are "
            "waiting, the oldest are paired with it at once into a started match: the answer's "
            "`status` is `matched` and `match` names it."
        ),
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.SeekInput, request)
        seek = seeks.seek_post(user=requester(request), **data)
        response = Response(seeks.seek_resource(seek), status=status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/seeks/{seek.id}")
        return response


class SeekDetailApi(APIView):
    throttle_scope = {"GET": "reads", "DELETE": "moves"}
    token_scope = scopes.PLAY

    @extend_schema(responses={200: s.SeekOutput, 404: PROBLEM}, tags=["seeks"])
    def get(self, request: Request, seek_id: str) -> Response:
        seek = seeks.seek_get(seek_id=_seek_id(seek_id), user=requester(request))
        return Response(seeks.seek_resource(seek))

    @extend_schema(
        responses={204: None, 404: PROBLEM, 409: PROBLEM},
        tags=["seeks"],
        description="Cancel your open seek (409 seek_closed once matched, cancelled or expired).",
    )
    def delete(self, request: Request, seek_id: str) -> Response:
        seeks.seek_cancel(seek_id=_seek_id(seek_id), user=requester(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChatApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "chat"}
    token_scope = scopes.PLAY

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": MAX_SEQ},
                description="Exclusive; default 0.",
            )
        ],
        responses={200: s.ChatPageOutput, 400: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=["chat"],
        description="The match's chat, for anyone who may read the match, without the "
        "messages of players you muted. Never part of the match's events, version or ETag.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        after = param_int(request.query_params, "after", default=0, low=0, high=MAX_SEQ)
        messages, more, last_seq = chat.chat_read(
            match_id=match_id_or_404(match_id), user=requester(request), after=after
        )
        next_url = None
        if more:
            next_url = request.build_absolute_uri(f"{request.path}?after={messages[-1]['seq']}")
        return Response({"results": messages, "next": next_url, "last_seq": last_seq})

    @extend_schema(
        request=s.ChatInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.ChatMessageOutput, 400: PROBLEM, 403: PROBLEM, 409: PROBLEM},
        tags=["chat"],
        description="Seated players only (403 not_seated for spectators); "
        "FACEDOWN_CHAT_MAX_LENGTH characters at most; throttled (scope `chat`).",
    )
    @idempotent
    def post(self, request: Request, match_id: str) -> Response:
        data = validated(s.ChatInput, request)
        message = chat.chat_post(
            match_id=match_id_or_404(match_id), user=requester(request), text=data["text"]
        )
        return Response(message, status=status.HTTP_201_CREATED)


class ChatHideApi(APIView):
    throttle_scope = "moves"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.HideInput,
        responses={200: s.ChatMessageOutput, 403: PROBLEM, 404: PROBLEM},
        tags=["chat"],
        description="Operators (staff) only: hide a message from players, with a reason.",
    )
    def post(self, request: Request, match_id: str, seq: int) -> Response:
        data = validated(s.HideInput, request)
        message = chat.chat_hide(
            match_id=match_id_or_404(match_id),
            seq=seq,
            operator=requester(request),
            reason=data["reason"],
        )
        return Response(message)


class MutesApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "moves"}

    @extend_schema(responses={200: s.MutesOutput}, tags=["chat"])
    def get(self, request: Request) -> Response:
        return Response({"muted": chat.mutes_of(requester(request))})

    @extend_schema(
        request=s.MuteInput,
        responses={200: s.MutesOutput, 400: PROBLEM, 404: PROBLEM},
        tags=["chat"],
        description="Mute (`muted: true`, the default) or unmute a player's chat messages, "
        "for you, in every match. Answers the players you mute.",
    )
    def post(self, request: Request) -> Response:
        data: dict[str, Any] = validated(s.MuteInput, request)
        muted = chat.mute_set(user=requester(request), player=data["player"], muted=data["muted"])
        return Response({"muted": muted})


def _challenge_id(raw: str) -> uuid.UUID:
    try:
        return match_id_or_404(raw)
    except NotFound:
        raise NotFound(gettext_noop("No challenge with this id.")) from None


def _challenge_answer(challenge: Any, code: int = status.HTTP_200_OK) -> Response:
    return Response(challenges.challenge_resource(challenge), status=code)


class ChallengeListApi(APIView):
    throttle_scope = {"GET": "reads", "POST": "challenges"}
    token_scope = scopes.CHALLENGE

    @extend_schema(
        responses={200: s.ChallengeListOutput},
        tags=["challenges"],
        operation_id=operation_id("/api/v1/challenges", "list"),
        description="Pending challenges: to you, from you, and open ones of others.",
    )
    def get(self, request: Request) -> Response:
        return Response(challenges.challenges_pending(requester(request)))

    @extend_schema(
        request=s.ChallengeInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.ChallengeOutput, 400: PROBLEM, 403: PROBLEM, 429: PROBLEM},
        tags=["challenges"],
        description="Challenge a user (`to`), anyone (neither `to` nor `house_bot`), or a house "
        "bot (`house_bot`: accepted at once, `match_id` names the started match). The "
        "challenged user hears of it on the account stream (`challenge`). 403 "
        "`invitation_refused` (the user's settings), 429 `invitations_exhausted` (the hourly "
        "budget of challenges and invitations from one account to another).",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.ChallengeInput, request)
        if "expires_in" in data:
            data["expires_in"] = timedelta(seconds=data["expires_in"])
        challenge = challenges.challenge_create(challenger=requester(request), **data)
        response = _challenge_answer(challenge, status.HTTP_201_CREATED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/challenges/{challenge.id}")
        return response


class ChallengeDetailApi(APIView):
    throttle_scope = "reads"

    @extend_schema(responses={200: s.ChallengeOutput, 404: PROBLEM}, tags=["challenges"])
    def get(self, request: Request, challenge_id: str) -> Response:
        challenge = challenges.challenge_get(
            challenge_id=_challenge_id(challenge_id), user=requester(request)
        )
        return _challenge_answer(challenge)


def _challenge_answered(
    request: Request, verb: str, data: dict[str, Any], ids: dict[str, str]
) -> Response:
    answers: dict[str, Callable[..., Any]] = {
        "accept": challenges.challenge_accept,
        "decline": challenges.challenge_decline,
        "cancel": challenges.challenge_cancel,
    }
    challenge = answers[verb](
        challenge_id=_challenge_id(ids["challenge_id"]), user=requester(request), **data
    )
    return _challenge_answer(challenge)


CHALLENGES = AnswerFamily(
    name="Challenge",
    answer=_challenge_answered,
    throttle_scope="challenges",
    token_scope=scopes.CHALLENGE,
    tags=["challenges"],
)

ChallengeAcceptApi = answer_api(
    CHALLENGES,
    "accept",
    responses={200: s.ChallengeOutput, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
    description="Accept: the match is created and started (`match_id`). 409 "
    "`challenge_closed` once it was accepted, declined, canceled or expired; 403 "
    "`bots_not_allowed` for a bot account and an open challenge without `allow_bots`.",
)
ChallengeDeclineApi = answer_api(
    CHALLENGES,
    "decline",
    body=s.DeclineInput,
    responses={200: s.ChallengeOutput, 404: PROBLEM, 409: PROBLEM},
    description="Decline a challenge to you, with a reason (`generic` if omitted); the "
    "challenger hears of it on the account stream (`challenge_declined`).",
)
ChallengeCancelApi = answer_api(
    CHALLENGES,
    "cancel",
    responses={200: s.ChallengeOutput, 404: PROBLEM, 409: PROBLEM},
    description="Withdraw your pending challenge (`challenge_canceled` on the account "
    "stream of the challenged).",
)


class BulkPairingApi(APIView):
    throttle_scope = "bulk_pairing"
    token_scope = scopes.CHALLENGE

    @extend_schema(
        request=s.BulkPairingInput,
        parameters=[IDEMPOTENCY_HEADER],
        responses={
            201: s.BulkPairingOutput,
            400: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
            429: PROBLEM,
        },
        tags=["challenges"],
        description="Up to 500 matches at once, for a league run elsewhere: you take no seat; "
        "each player is invited and a match starts once all its players accepted (POST "
        "/matches/{id}/join; `decline` refuses it). All or none are created. Every seat is an "
        "invitation within the hourly budget from you to its player (429 "
        "`invitations_exhausted`, nothing created); 403 `invitation_refused` when a player's "
        "settings refuse you.",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.BulkPairingInput, request)
        matches = challenges.bulk_pairing_create(organiser=requester(request), **data)
        body = {"matches": [str(match.id) for match in matches]}
        return Response(body, status=status.HTTP_201_CREATED)
