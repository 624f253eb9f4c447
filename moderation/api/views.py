"""Report and appeal endpoints: validate, call one service, render (docs/api.md, "Reports")."""

from __future__ import annotations

from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from core.api.input import validated
from core.api.schema import PROBLEM
from core.errors import NotFound
from core.openapi import operation_id
from games.events import timestamp
from moderation import reports, sanctions
from moderation.api import serializers as s

TAGS = ["moderation"]


class ReportApi(APIView):
    throttle_scope = "reports"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.ReportInput,
        responses={201: s.ReportOutput, 400: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description="Report a chat message (`match`, `seq`), a player (`player`, optionally "
        "the `match` it is about) or a match (`match`) to the moderators. Reports about the "
        "same object merge; the reported player never learns who reported. Throttled (scope "
        "`reports`); 403 `reporting_suspended` after repeatedly dismissed reports, 409 "
        "`already_reported` for a second report of the same open case.",
    )
    def post(self, request: Request) -> Response:
        data = validated(s.ReportInput, request)
        filing = reports.report_file(
            reporter=requester(request),
            kind=data["kind"],
            reason=data["reason"],
            comment=data.get("comment", ""),
            match=data.get("match"),
            seq=data.get("seq"),
            player=data.get("player"),
        )
        body = {"kind": data["kind"], "reason": filing.reason, "at": timestamp(filing.at)}
        return Response(body, status=status.HTTP_201_CREATED)


class SanctionListApi(APIView):
    throttle_scope = "reads"
    token_scope = scopes.READ

    @extend_schema(
        responses={200: s.SanctionListOutput},
        operation_id=operation_id("/api/v1/sanctions", "list"),
        tags=TAGS,
        description="Your own sanctions, newest first (never who gave them).",
    )
    def get(self, request: Request) -> Response:
        return Response({"results": sanctions.sanctions_of(requester(request))})


class SanctionAppealApi(APIView):
    throttle_scope = "reports"
    token_scope = scopes.PLAY

    @extend_schema(
        request=s.AppealInput,
        responses={201: s.SanctionOutput, 400: PROBLEM, 404: PROBLEM, 409: PROBLEM},
        tags=TAGS,
        description="Appeal your sanction, once (409 `already_appealed` after): the appeal "
        "goes to the moderators' queue.",
    )
    def post(self, request: Request, sanction_id: str) -> Response:
        data = validated(s.AppealInput, request)
        if not sanction_id.isdigit() or len(sanction_id) > 18:
            raise NotFound(gettext_noop("No sanction with this id."))
        sanction = sanctions.sanction_appeal(
            user=requester(request), sanction_id=int(sanction_id), text=data["text"]
        )
        return Response(sanctions.sanction_resource(sanction), status=status.HTTP_201_CREATED)
