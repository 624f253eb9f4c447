"""Input envelopes of seeks and chat (validated here) and output shapes (for the schema)."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictRegexField,
    StrictSerializer,
)
from games.services.fairness import CLIENT_SEED_PATTERN
from social.models import Seek


class SeekInput(StrictSerializer):
    game = StrictCharField(max_length=40)
    players = StrictIntegerField(min_value=1, max_value=16)
    options = serializers.DictField(required=False, default=dict)
    time_control = serializers.JSONField(
        required=False, allow_null=True, default=None, help_text="As at match creation."
    )
    rating_range = serializers.JSONField(
        required=False,
        allow_null=True,
        default=None,
        help_text='{"min": n, "max": n}: the opponents\' ratings this seek accepts. A player '
        "without a rating is accepted by every range.",
    )
    client_seed = StrictRegexField(
        CLIENT_SEED_PATTERN,
        required=False,
        help_text="Your entropy for the deal, sent as your join when the seek is paired.",
    )


class SeekOutput(serializers.Serializer):
    id = serializers.UUIDField()
    player = serializers.CharField()
    game = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField()
    time_control = serializers.DictField(allow_null=True)
    rating_range = serializers.DictField(allow_null=True)
    status = serializers.ChoiceField(choices=Seek.Status.choices)
    match = serializers.UUIDField(allow_null=True, help_text="The match, once paired.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class SeekPageOutput(serializers.Serializer):
    results = SeekOutput(many=True)


class ChatInput(StrictSerializer):
    text = StrictCharField(max_length=2000, trim_whitespace=False)


class ChatMessageOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The chat's own numbering, from 1 per match.")
    player = serializers.CharField()
    seat = serializers.IntegerField()
    at = serializers.DateTimeField()
    text = serializers.CharField(allow_null=True, help_text="null once hidden by an operator.")
    hidden = serializers.BooleanField()
    hidden_reason = serializers.CharField(required=False, help_text="Operators only.")


class ChatPageOutput(serializers.Serializer):
    results = ChatMessageOutput(many=True)
    next = serializers.URLField(allow_null=True)
    last_seq = serializers.IntegerField(
        help_text="The room's last message number (muted senders' messages included)."
    )


class HideInput(StrictSerializer):
    reason = StrictCharField(max_length=200)


class MuteInput(StrictSerializer):
    player = StrictCharField(max_length=150)
    muted = StrictBooleanField(default=True)


class MutesOutput(serializers.Serializer):
    muted = serializers.ListField(child=serializers.CharField())
