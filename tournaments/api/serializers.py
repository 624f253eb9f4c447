"""The tournament routes' input envelopes and output shapes, each declared once."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictDateTimeField,
    StrictIntegerField,
    StrictSerializer,
)
from tournaments.models import Entry, Tournament


def rating_bound() -> StrictIntegerField:
    """An entry condition's bound: optional, in the rating players read."""
    return StrictIntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=10_000,
        help_text="The rating players read (1500 for a newcomer), not openskill's ordinal.",
    )


class TournamentCreateInput(StrictSerializer):
    name = StrictCharField(max_length=100)
    game = StrictCharField(max_length=40)
    options = serializers.DictField(required=False, default=dict)
    seats = StrictIntegerField(min_value=1, max_value=16, default=2)
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    rounds = StrictIntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=50,
        help_text="Swiss: the number of rounds (required). Other formats: computed at the start.",
    )
    time_control = serializers.JSONField(
        required=False,
        allow_null=True,
        default=None,
        help_text="As at match creation; its auto_move_bot is the tournament's stand_in_bot.",
    )
    rated = StrictBooleanField(default=True)
    stand_in_bot = serializers.ChoiceField(choices=Tournament.StandIn.values, default="greedy")
    withdrawn_games = serializers.ChoiceField(
        choices=Tournament.WithdrawnGames.values,
        default="forfeit",
        help_text="Round robin: a withdrawn player's unplayed games are forfeits, or unrated "
        "games against the stand-in bot.",
    )
    knockout_draws = serializers.ChoiceField(
        choices=Tournament.KnockoutDraws.values,
        default="rating",
        help_text="Knockout: a drawn table is decided by a deciding match, or by the rating.",
    )
    round_interval_days = StrictIntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=60,
        help_text="null: a round starts when the previous one ends; else every so many days.",
    )
    round_limit_seconds = StrictIntegerField(
        min_value=60,
        max_value=120 * 24 * 3600,
        help_text="When a round has run this long, the stand-in bot plays every seat still "
        "to move to the end.",
    )
    visibility = serializers.ChoiceField(choices=Tournament.Visibility.values, default="public")
    min_rating = rating_bound()
    max_rating = rating_bound()
    min_rated_games = StrictIntegerField(min_value=0, max_value=100_000, default=0)
    min_account_days = StrictIntegerField(min_value=0, max_value=100_000, default=0)
    max_players = StrictIntegerField(
        required=False, allow_null=True, default=None, min_value=2, max_value=10_000
    )
    registration_opens_at = StrictDateTimeField(required=False, allow_null=True, default=None)
    registration_closes_at = StrictDateTimeField(required=False, allow_null=True, default=None)
    starts_at = StrictDateTimeField()
    featured = StrictBooleanField(default=False, help_text="Staff only.")
    arena_minutes = StrictIntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=60 * 24 * 60,
        help_text="Arena: the window's length from the start (required); players join and "
        "leave during it and are paired as soon as they are free.",
    )
    streaks = StrictBooleanField(
        default=True, help_text="Arena: after two wins in a row, wins score double."
    )
    berserk = StrictBooleanField(
        default=False,
        help_text="Arena with a Fischer or byo-yomi clock: a player may halve their own bank "
        "before their first move for one more point on a win.",
    )
    admit_bots = StrictBooleanField(
        default=False,
        help_text="Arena or Swiss: bot accounts may enter. Shown to every player before they join.",
    )


class BerserkInput(StrictSerializer):
    match = serializers.UUIDField(help_text="Your running match of this arena.")


class PlayerAddInput(StrictSerializer):
    username = StrictCharField(max_length=150)


class DisqualifyInput(StrictSerializer):
    reason = StrictCharField(max_length=500, required=False, default="")


class TournamentOutput(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    game = serializers.CharField()
    options = serializers.DictField()
    seats = serializers.IntegerField()
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    rounds = serializers.IntegerField(allow_null=True)
    time_control = serializers.DictField(allow_null=True)
    rated = serializers.BooleanField()
    stand_in_bot = serializers.CharField()
    withdrawn_games = serializers.ChoiceField(choices=Tournament.WithdrawnGames.values)
    knockout_draws = serializers.ChoiceField(choices=Tournament.KnockoutDraws.values)
    round_interval_days = serializers.IntegerField(allow_null=True)
    round_limit_seconds = serializers.IntegerField()
    visibility = serializers.ChoiceField(choices=Tournament.Visibility.values)
    min_rating = serializers.IntegerField(allow_null=True)
    max_rating = serializers.IntegerField(allow_null=True)
    min_rated_games = serializers.IntegerField()
    min_account_days = serializers.IntegerField()
    max_players = serializers.IntegerField(allow_null=True)
    featured = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Tournament.Status.values)
    current_round = serializers.IntegerField()
    registration_opens_at = serializers.DateTimeField(allow_null=True)
    registration_closes_at = StrictDateTimeField(allow_null=True)
    starts_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    players = serializers.IntegerField(help_text="Registered players still in.")
    organiser = serializers.CharField()
    arena_minutes = serializers.IntegerField(allow_null=True)
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="Arena: the window's end, once started."
    )
    streaks = serializers.BooleanField()
    berserk = serializers.BooleanField()
    admit_bots = serializers.BooleanField(
        help_text="Bot accounts may enter: players may be paired with programs."
    )


class TournamentPageOutput(serializers.Serializer):
    results = TournamentOutput(many=True)


class YouOutput(serializers.Serializer):
    registered = serializers.BooleanField()
    invited = serializers.BooleanField(
        help_text="The organiser invited you and you have not joined: join or decline."
    )
    status = serializers.ChoiceField(choices=Entry.Status.values, allow_null=True)
    may_join = serializers.BooleanField()
    why_not = serializers.CharField(
        allow_null=True, help_text="Why you may not join now: a stable code (docs/api.md)."
    )
    is_organiser = serializers.BooleanField()
    rating = serializers.IntegerField(
        allow_null=True,
        help_text="Your rating in the game as players read it, the unit of min_rating and "
        "max_rating (null: not logged in).",
    )


class TournamentDetailOutput(TournamentOutput):
    you = YouOutput()


class StandingRowOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    score = serializers.FloatField()
    buchholz = serializers.FloatField()
    sonneborn_berger = serializers.FloatField()
    direct = serializers.FloatField()
    rating = serializers.IntegerField(
        help_text="The rating players read (1500 for a newcomer) at entry: seeding and the last "
        "tie-break."
    )
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Entry.Status.values)
    on_fire = serializers.BooleanField(
        help_text="Arena with streaks: two wins in a row, the next win scores double."
    )


class StandingsOutput(serializers.Serializer):
    round = serializers.IntegerField(help_text="Rounds finished so far.")
    rows = StandingRowOutput(many=True)


class CrosstableOutput(serializers.Serializer):
    players = serializers.ListField(child=serializers.CharField())
    cells = serializers.ListField(
        child=serializers.ListField(child=serializers.ListField(child=serializers.FloatField())),
        help_text="cells[row][column]: the points the row player scored against the column "
        "player in each finished meeting.",
    )


class TableOutput(serializers.Serializer):
    match = serializers.UUIDField(allow_null=True, help_text="null: a forfeit without a match.")
    players = serializers.ListField(child=serializers.CharField(allow_null=True))
    result = serializers.ListField(
        child=serializers.FloatField(),
        allow_null=True,
        help_text="null until the match is over; then each player's points, in seat order.",
    )
    decided_by_stand_in = serializers.BooleanField()


class RoundOutput(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    limit_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    tables = TableOutput(many=True)
    byes = serializers.ListField(child=serializers.CharField())


class TournamentEventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    at = serializers.DateTimeField()
    author = serializers.CharField(allow_null=True)
    # The event's public details ("data" would shadow the serializer's own attribute).
    details = serializers.DictField(source="data", help_text="Names, round numbers, reasons.")


class EntryOutput(serializers.Serializer):
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=Entry.Status.values)
    invited = serializers.BooleanField()
    joined = serializers.BooleanField()
