"""``/accounts/me/vacation``: the vacation bank, going away and coming back, and where your
weekends are (games/services/vacations.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.requester import requester
from accounts.vacation_bank import DAY, vacation_settings
from core.api.input import validated
from core.api.schema import PROBLEM
from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictDateTimeField,
    StrictSerializer,
)
from games.events import timestamp
from games.services.vacations import VacationState, vacation_end, vacation_start, vacation_state


class VacationOutput(serializers.Serializer):
    bank_seconds = serializers.FloatField(help_text="Vacation time saved now, in seconds.")
    bank_days = serializers.FloatField(help_text="The same in days (one decimal).")
    on_vacation = serializers.BooleanField()
    started_at = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True)
    auto_vacation = serializers.BooleanField(
        help_text="Start a vacation by itself when a correspondence clock would run out."
    )
    time_zone = serializers.CharField(help_text="Where your weekends are (IANA name).")


class VacationStartInput(StrictSerializer):
    until = StrictDateTimeField(help_text="When the vacation ends (at most the bank).")


class VacationSettingsInput(StrictSerializer):
    auto_vacation = StrictBooleanField(required=False)
    time_zone = StrictCharField(required=False, max_length=64)


def _body(state: VacationState) -> dict[str, Any]:
    return {
        "bank_seconds": state.bank_seconds,
        "bank_days": round(state.bank_seconds / DAY, 1),
        "on_vacation": state.until is not None,
        "started_at": timestamp(state.started_at),
        "until": timestamp(state.until),
        "auto_vacation": state.auto_vacation,
        "time_zone": state.time_zone,
    }


class VacationApi(APIView):
    throttle_scope = {"GET": "reads", "PATCH": "account", "POST": "account", "DELETE": "account"}
    token_scope = scopes.ACCOUNT

    @extend_schema(responses={200: VacationOutput}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        return Response(_body(vacation_state(requester(request))))

    @extend_schema(
        request=VacationStartInput,
        responses={200: VacationOutput, 400: PROBLEM, 409: PROBLEM},
        tags=["accounts"],
        description="Go on vacation until `until`: the time is taken from the bank now, and "
        "your clocks in correspondence matches (a day or more per step or bank) are held until "
        "then; your opponents see `vacation_until` on your clock. 409 `vacation_conflict` if "
        "you are on vacation already; 400 if the bank holds less.",
    )
    def post(self, request: Request) -> Response:
        until = validated(VacationStartInput, request)["until"]
        return Response(_body(vacation_start(user=requester(request), until=until)))

    @extend_schema(
        request=None,
        responses={200: VacationOutput, 409: PROBLEM},
        tags=["accounts"],
        description="Come back early: the unused time returns to the bank (up to its cap); "
        "your clocks count again from now. 409 `vacation_conflict` if you are not on vacation.",
    )
    def delete(self, request: Request) -> Response:
        return Response(_body(vacation_end(user=requester(request))))

    @extend_schema(
        request=VacationSettingsInput,
        responses={200: VacationOutput, 400: PROBLEM},
        tags=["accounts"],
        description="Opt in or out of automatic vacations; set your time zone (matches with "
        "`weekend_pause` record it when they start).",
    )
    def patch(self, request: Request) -> Response:
        user = vacation_settings(
            user=requester(request), **validated(VacationSettingsInput, request)
        )
        return Response(_body(vacation_state(user)))
