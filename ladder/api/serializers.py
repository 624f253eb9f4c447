"""The ladder routes' input envelope and output shapes, each declared once."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import StrictIntegerField, StrictSerializer
from ladder.models import LadderEntry


class LadderEntryInput(StrictSerializer):
    seats = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=16),
        required=False,
        default=None,
        help_text="Table sizes accepted (default: the game's smallest).",
    )
    options = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        default=None,
        help_text="Option objects accepted, each checked by the game's schema (default: [{}]).",
    )
    time_controls = serializers.ListField(
        child=serializers.DictField(allow_null=True),
        required=False,
        default=None,
        help_text="Time controls accepted (ladder matches are timed; default: 60 s a step).",
    )
    max_concurrent = StrictIntegerField(
        required=False,
        default=None,
        min_value=1,
        help_text="Ladder matches at once (default 1, at most FACEDOWN_LADDER_MAX_CONCURRENT).",
    )


class LadderEntryOutput(serializers.Serializer):
    game = serializers.CharField()
    player = serializers.CharField()
    is_bot = serializers.BooleanField()
    status = serializers.ChoiceField(choices=LadderEntry.Status.values)
    paused_reason = serializers.CharField(
        allow_null=True,
        help_text="Why the server paused the entry (`timeouts`, `missed_first_move`).",
    )
    seats = serializers.ListField(child=serializers.IntegerField())
    options = serializers.ListField(child=serializers.DictField())
    time_controls = serializers.ListField(child=serializers.DictField())
    max_concurrent = serializers.IntegerField()
    rating = serializers.IntegerField(help_text="The ladder rating as shown (1500 a newcomer).")
    provisional = serializers.BooleanField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    interval = serializers.ListField(
        child=serializers.FloatField(), help_text="openskill's mu - 2 sigma and mu + 2 sigma."
    )
    played = serializers.IntegerField()
    won = serializers.IntegerField()


class LadderPairOutput(serializers.Serializer):
    player = serializers.CharField()
    opponent = serializers.CharField()
    matches = serializers.IntegerField()
    score = serializers.FloatField(help_text="The player's: 1 a place above, 1/2 the same place.")
    interval = serializers.ListField(
        child=serializers.FloatField(), help_text="95% Wilson interval of the score share."
    )


class LadderMatchOutput(serializers.Serializer):
    match_id = serializers.UUIDField()
    players = serializers.ListField(child=serializers.CharField())
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), allow_null=True
    )
    verified = serializers.BooleanField(allow_null=True)
    transcript = serializers.CharField(help_text="The transcript's path (GET, public).")


class LadderFailureOutput(serializers.Serializer):
    match_id = serializers.UUIDField()
    problems = serializers.CharField()


class LadderVerificationOutput(serializers.Serializer):
    verified = serializers.IntegerField()
    failed = serializers.IntegerField()
    pending = serializers.IntegerField()
    failures = LadderFailureOutput(many=True)


class LadderOutput(serializers.Serializer):
    game = serializers.CharField()
    entrants = LadderEntryOutput(many=True)
    crosstable = LadderPairOutput(many=True)
    matches = LadderMatchOutput(many=True)
    verification = LadderVerificationOutput()
