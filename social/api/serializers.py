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
from games.models import DeclineReason, Match
from games.services.fairness import CLIENT_SEED_PATTERN
from social.models import Challenge, Seek


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
        help_text='{"min": n, "max": n}: the opponents\' ratings this seek accepts, as players '
        "read them (1500 for a newcomer). A player without a rating is accepted by every range.",
    )
    client_seed = StrictRegexField(
        CLIENT_SEED_PATTERN,
        required=False,
        help_text="Your entropy for the deal, sent as your join when the seek is paired.",
    )
    allow_bots = StrictBooleanField(
        required=False,
        default=False,
        help_text="Let bot accounts pair with this seek (they do not otherwise).",
    )


class SeekOutput(serializers.Serializer):
    id = serializers.UUIDField()
    player = serializers.CharField()
    bot = serializers.BooleanField(help_text="The seeker is a bot account.")
    allow_bots = serializers.BooleanField()
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


class ChallengeInput(StrictSerializer):
    game = StrictCharField(max_length=40)
    to = StrictCharField(
        required=False, max_length=150, help_text="The user challenged; omit for anyone."
    )
    house_bot = StrictCharField(
        required=False,
        max_length=40,
        help_text="Challenge a house bot instead (GET /games/{slug}): accepted at once.",
    )
    seats = StrictIntegerField(
        required=False, min_value=2, max_value=16, help_text="Seats past two: house bots."
    )
    options = serializers.DictField(required=False, default=dict)
    time_control = serializers.JSONField(
        required=False, allow_null=True, default=None, help_text="As at match creation."
    )
    rated = StrictBooleanField(required=False, default=True)
    protocol = serializers.ChoiceField(
        choices=Match.Protocol.values, required=False, default=Match.Protocol.SEALED
    )
    expires_in = StrictIntegerField(
        required=False, min_value=60, max_value=30 * 86400, help_text="Seconds; 7 days if omitted."
    )
    allow_bots = StrictBooleanField(
        required=False,
        default=False,
        help_text="An open challenge: bot accounts may accept it (a match of a person and a "
        "bot account is unrated).",
    )


class ChallengeOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Challenge.Status.choices)
    challenger = serializers.CharField()
    challenger_bot = serializers.BooleanField()
    to = serializers.CharField(allow_null=True)
    house_bot = serializers.CharField(allow_null=True)
    game = serializers.CharField()
    seats = serializers.IntegerField()
    options = serializers.DictField()
    time_control = serializers.DictField(allow_null=True)
    rated = serializers.BooleanField(
        help_text="Whether the match will be rated: false from the start between a person and "
        "a bot account."
    )
    protocol = serializers.CharField()
    allow_bots = serializers.BooleanField()
    decline_reason = serializers.ChoiceField(choices=DeclineReason.choices, allow_null=True)
    match_id = serializers.UUIDField(allow_null=True, help_text="The match, once accepted.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class ChallengeListOutput(serializers.Serializer):
    incoming = ChallengeOutput(many=True)
    outgoing = ChallengeOutput(many=True)
    open = ChallengeOutput(many=True, help_text="Open challenges of others anyone may accept.")


class DeclineInput(StrictSerializer):
    reason = serializers.ChoiceField(
        choices=DeclineReason.choices, required=False, default=DeclineReason.GENERIC
    )


class BulkPairingInput(StrictSerializer):
    game = StrictCharField(max_length=40)
    pairings = serializers.ListField(
        child=serializers.ListField(child=StrictCharField(max_length=150), min_length=1),
        min_length=1,
        max_length=500,
        help_text="Each entry one match: its players' names in seat order.",
    )
    options = serializers.DictField(required=False, default=dict)
    time_control = serializers.JSONField(required=False, allow_null=True, default=None)
    rated = StrictBooleanField(required=False, default=True)
    protocol = serializers.ChoiceField(
        choices=Match.Protocol.values, required=False, default=Match.Protocol.SEALED
    )


class BulkPairingOutput(serializers.Serializer):
    matches = serializers.ListField(
        child=serializers.UUIDField(), help_text="The new matches, in the order of `pairings`."
    )
