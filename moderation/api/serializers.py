"""Input envelopes of reports and appeals (validated here) and output shapes (for the schema)."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import StrictCharField, StrictIntegerField, StrictSerializer

REPORT_KINDS = ["chat_message", "player", "match"]
REPORT_REASONS = ["abuse", "abandonment", "outside_help", "spam", "other"]
SANCTION_KINDS = ["warn", "chat_mute", "suspend", "close"]


class ReportInput(StrictSerializer):
    kind = serializers.ChoiceField(choices=REPORT_KINDS)
    reason = serializers.ChoiceField(choices=REPORT_REASONS)
    match = serializers.UUIDField(
        required=False, help_text="chat_message and match: the match; player: optional context."
    )
    seq = StrictIntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="chat_message: its number."
    )
    player = StrictCharField(required=False, max_length=150, help_text="player: the name.")
    comment = StrictCharField(required=False, max_length=1000, default="")


class ReportOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=REPORT_KINDS)
    reason = serializers.ChoiceField(choices=REPORT_REASONS)
    at = serializers.DateTimeField()


class SanctionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SANCTION_KINDS)
    reason = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="null: no end.")
    lifted_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was lifted, or its end passed and was recorded."
    )
    appealed = serializers.BooleanField()


class SanctionListOutput(serializers.Serializer):
    results = SanctionOutput(many=True)


class AppealInput(StrictSerializer):
    text = StrictCharField(max_length=2000)
