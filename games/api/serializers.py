"""Input envelopes (validated here) and the output shapes of the routes off the match routes
(for the OpenAPI schema: their bodies are built by the services). The match routes' bodies
are declared once, in ``games.services.bodies``."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.serializers import (
    MAX_INT,
    StrictBooleanField,
    StrictCharField,
    StrictDateTimeField,
    StrictIntegerField,
    StrictRegexField,
    StrictSerializer,
)
from games.api.body_schemas import shape_field
from games.models import DeclineReason, Match
from games.services import bodies, rating_scale
from games.services.fairness import CLIENT_SEED_PATTERN
from games.services.matches import SeatSpec


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "enum": ["me", "open"]},
            {"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]},
            {
                "type": "object",
                "properties": {"bot": {"type": "string"}, "options": {"type": "object"}},
                "required": ["bot"],
                "description": "A bot seat: a strategy of GET /games (bots), with its options.",
            },
        ]
    }
)
class SeatSpecField(serializers.Field):
    default_error_messages = {
        "invalid": 'A seat is "me", "open", {{"user": name}} or {{"bot": name, "options": {{}}}}.'
    }

    def to_internal_value(self, data: Any) -> SeatSpec:
        if data in ("me", "open"):
            return SeatSpec(kind=data)
        if isinstance(data, dict) and set(data) == {"user"} and isinstance(data["user"], str):
            return SeatSpec(kind="user", username=data["user"])
        if (
            isinstance(data, dict)
            and set(data) <= {"bot", "options"}
            and isinstance(data.get("bot"), str)
            and isinstance(data.get("options", {}), dict)
        ):
            return SeatSpec(kind="bot", bot=data["bot"], options=data.get("options"))
        self.fail("invalid")

    def to_representation(self, value: Any) -> Any:
        return value


class MatchCreateInput(StrictSerializer):
    refused = {
        "client_seed": "Not accepted at creation: send it with join, after the seed hash "
        "is published."
    }
    game = StrictCharField(max_length=40)
    options = serializers.DictField(required=False, default=dict)
    seats = serializers.ListField(child=SeatSpecField(), min_length=1, max_length=16)
    protocol = serializers.ChoiceField(choices=Match.Protocol.values, default=Match.Protocol.SEALED)
    disclose_submitted = StrictBooleanField(default=True)
    ready = StrictBooleanField(default=True)
    chat = StrictBooleanField(
        default=True, help_text="false: the match has no chat (GET/POST /matches/{id}/chat)."
    )
    time_control = serializers.JSONField(
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            '{"per_step_seconds": 10 … 1209600, "on_timeout": "auto_move" (default) | '
            '"forfeit", "auto_move_bot": "greedy" (default)}, or null for an untimed match.'
        ),
    )
    rated = StrictBooleanField(
        default=True, help_text="Whether finishing it updates the players' ratings."
    )


class SeriesCreateInput(MatchCreateInput):
    matches = StrictIntegerField(
        min_value=1, max_value=20, help_text="How many matches, played one after another."
    )


class JoinInput(StrictSerializer):
    seat = StrictIntegerField(required=False, min_value=0, max_value=15)
    client_seed = StrictRegexField(CLIENT_SEED_PATTERN, required=False, max_length=64)


class MatchDeclineInput(StrictSerializer):
    reason = serializers.ChoiceField(choices=DeclineReason.choices, required=False)


class EmptyInput(StrictSerializer):
    pass


#: A commitment: the hex SHA-256 of the move and its salt (docs/api.md).
COMMITMENT = re.compile(r"^[0-9a-f]{64}\Z", re.ASCII)
FIRST_STEP = 1


class MoveInput(StrictSerializer):
    step = StrictIntegerField(min_value=FIRST_STEP, max_value=MAX_INT)
    move = serializers.DictField(required=False)
    commitment = StrictRegexField(COMMITMENT.pattern, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("move" in attrs) == ("commitment" in attrs):
            raise serializers.ValidationError(
                {"move": [gettext_noop("Send exactly one of 'move' and 'commitment'.")]}
            )
        return attrs

    @staticmethod
    def fast(data: Any) -> dict[str, Any] | None:
        """The validated data of a well-formed body, from the fields' own bounds above but
        without the serializer machinery (a tenth of a move's CPU); None for anything else,
        which the serializer then validates and refuses with its own errors. Accepts exactly
        what the serializer accepts among these shapes (tests/api/test_move_input.py)."""
        if type(data) is not dict or len(data) != 2:
            return None
        step = data.get("step")
        if type(step) is not int or not FIRST_STEP <= step <= MAX_INT:
            return None
        move = data.get("move")
        if type(move) is dict:
            return {"step": step, "move": {str(key): value for key, value in move.items()}}
        commitment = data.get("commitment")
        if type(commitment) is str and COMMITMENT.match(commitment):
            return {"step": step, "commitment": commitment}
        return None


class RevealInput(StrictSerializer):
    step = StrictIntegerField(min_value=1)
    move = serializers.DictField()
    salt = StrictRegexField(r"^[0-9a-f]{32,128}\Z")


# -- Output shapes, for the schema -------------------------------------------------------------


class BotStrengthOutput(serializers.Serializer):
    against = serializers.CharField(help_text="The bot it was measured against.")
    margin = serializers.FloatField(
        help_text="Mean points per game above the other seats' mean (in the arena)."
    )
    win_rate = serializers.FloatField(help_text="Share of games won (shared wins split).")
    players = serializers.IntegerField(help_text="Seats per game in the measurement.")
    deals = serializers.IntegerField(help_text="Duplicate deals measured.")


class BotOutput(serializers.Serializer):
    name = serializers.CharField()
    options = serializers.DictField()
    description = serializers.CharField(help_text="One line about how it plays.")
    strength = BotStrengthOutput(
        allow_null=True, help_text="Measured in the arena (docs/bots.md); null until measured."
    )


class PlayersOutput(serializers.Serializer):
    min = serializers.IntegerField()
    max = serializers.IntegerField()


class GameOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    players = PlayersOutput()
    options = serializers.DictField(help_text="JSON Schema of the options, with defaults.")
    bots = BotOutput(many=True)


class SeriesMatchOutput(serializers.Serializer):
    id = serializers.UUIDField()
    index = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Match.Status.values)
    seats = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="Player or bot name per seat."
    )
    result = shape_field(bodies.Result, nullable=True)


class StandingOutput(serializers.Serializer):
    participant = serializers.IntegerField(help_text="Their seat in the first match.")
    player = serializers.CharField(allow_null=True)
    bot = serializers.CharField(allow_null=True)
    played = serializers.IntegerField()
    won = serializers.IntegerField(help_text="Matches won (a shared win counts).")
    points = serializers.IntegerField(help_text="Sum of their scores.")


class SeriesOutput(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    length = serializers.IntegerField()
    created_by = serializers.CharField()
    status = serializers.CharField(help_text="running, finished or aborted (a match aborted).")
    matches = SeriesMatchOutput(many=True)
    standings = StandingOutput(many=True, help_text="Most wins first, then most points.")


RATING_HELP = (
    f"The rating a person reads: {rating_scale.BASE} + {rating_scale.STEP} x the ordinal, "
    "rounded (docs/api.md, Ratings)."
)
PROVISIONAL_HELP = (
    f"Sigma above {rating_scale.PROVISIONAL_SIGMA:g}: the rating is still uncertain "
    "(pages show it with a '?')."
)


class LeaderboardEntryOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    bot = serializers.BooleanField(help_text="A bot account.")
    rating = serializers.IntegerField(help_text=RATING_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    ordinal = serializers.FloatField(help_text="openskill's ordinal: mu - 3 sigma.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rated_matches = serializers.IntegerField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()


class LeaderboardPageOutput(serializers.Serializer):
    results = LeaderboardEntryOutput(many=True)
    next = serializers.URLField(allow_null=True)


class PlayerRatingOutput(serializers.Serializer):
    game = serializers.CharField()
    rating = serializers.IntegerField(
        allow_null=True, help_text=RATING_HELP + " Null before a rated match."
    )
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    ordinal = serializers.FloatField(
        allow_null=True, help_text="openskill's ordinal: mu - 3 sigma. Null before a rated match."
    )
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rated_matches = serializers.IntegerField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()


class StreakOutput(serializers.Serializer):
    kind = serializers.CharField(allow_null=True, help_text="won or lost; null before any.")
    length = serializers.IntegerField()


class RecentMatchOutput(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    finished_at = serializers.DateTimeField()
    seat = serializers.IntegerField()
    won = serializers.BooleanField()
    players = serializers.ListField(child=serializers.CharField(allow_null=True))
    result = shape_field(bodies.Result)


class PlayerOutput(serializers.Serializer):
    player = serializers.CharField()
    bot = serializers.BooleanField(help_text="A bot account (docs/programs.md).")
    joined = serializers.DateTimeField()
    ratings = PlayerRatingOutput(many=True)
    streak = StreakOutput(help_text="Consecutive finished matches won (or not won), latest first.")
    recent = RecentMatchOutput(many=True)


class ProposalInput(StrictSerializer):
    kind = serializers.ChoiceField(choices=["pause", "abort"])
    until = StrictDateTimeField(
        required=False, help_text="A pause's end: after now, at most 14 days ahead."
    )


class ConditionalRuleInput(StrictSerializer):
    pot = serializers.ListField(
        child=StrictIntegerField(min_value=-(2**15), max_value=2**15),
        allow_null=True,
        required=False,
        min_length=1,
        max_length=64,
        help_text="The pot values (the sum of the pot's cards) the rule applies to; "
        "null or absent: any pot.",
    )
    card = StrictIntegerField(min_value=0, max_value=2**15, help_text="The card to bid.")


class ConditionalMovesInput(StrictSerializer):
    rules = serializers.ListField(
        child=ConditionalRuleInput(),
        max_length=64,
        help_text="Tried in order: the first whose pot matches and whose card is in your hand "
        "is played when a step opens. [] clears them.",
    )


class SeatOfferInput(StrictSerializer):
    seat = StrictIntegerField(min_value=0, max_value=15)
    invitee = serializers.CharField(
        required=False,
        max_length=150,
        help_text="The one user it is offered to; without it, an open seat anyone may take.",
    )
