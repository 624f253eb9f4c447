"""Tournaments: the settings, the entries, the rounds and their matches, the byes, the events.

The matches themselves are games' ``Match`` rows, created and played through games' services;
a ``TournamentMatch`` only ties one to its round and remembers who sat where. Every write to
these rows goes through ``tournaments.services`` under the tournament row's lock
(``tournaments.locks``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss"
        ROUND_ROBIN = "round_robin"
        DOUBLE_ROUND_ROBIN = "double_round_robin"
        KNOCKOUT = "knockout"
        #: A time window in which players are paired in waves as soon as they are free.
        ARENA = "arena"

    class Status(models.TextChoices):
        REGISTERING = "registering"
        RUNNING = "running"
        PAUSED = "paused"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class StandIn(models.TextChoices):
        GREEDY = "greedy"
        EXPERT = "expert"

    class WithdrawnGames(models.TextChoices):
        FORFEIT = "forfeit"
        STAND_IN = "stand_in"

    class KnockoutDraws(models.TextChoices):
        REPLAY = "replay"
        RATING = "rating"

    class Visibility(models.TextChoices):
        PUBLIC = "public"
        INVITATION = "invitation"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=40)
    options = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField(default=2)
    format = models.CharField(max_length=24, choices=Format.choices)
    #: Swiss: as chosen; the other formats: computed when the tournament starts.
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    time_control = models.JSONField(null=True, blank=True)
    rated = models.BooleanField(default=True)
    stand_in_bot = models.CharField(
        "stand-in bot", max_length=16, choices=StandIn.choices, default=StandIn.GREEDY
    )
    withdrawn_games = models.CharField(
        max_length=16, choices=WithdrawnGames.choices, default=WithdrawnGames.FORFEIT
    )
    knockout_draws = models.CharField(
        max_length=16, choices=KnockoutDraws.choices, default=KnockoutDraws.RATING
    )
    #: Null: a round starts when the previous one ends; else every so many days.
    round_interval_days = models.PositiveSmallIntegerField(null=True, blank=True)
    #: How long a round may run before the stand-in bot plays every seat still to move.
    round_limit_seconds = models.PositiveIntegerField()
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    #: Entry conditions in the rating players read (games/services/rating_scale.py: 1500 a
    #: newcomer), compared with the player's rating rounded as shown.
    min_rating = models.IntegerField(null=True, blank=True)
    max_rating = models.IntegerField(null=True, blank=True)
    min_rated_games = models.PositiveIntegerField(default=0)
    min_account_days = models.PositiveIntegerField(default=0)
    max_players = models.PositiveIntegerField(null=True, blank=True)
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REGISTERING)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    featured = models.BooleanField(default=False)
    current_round = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Arena: the window's length from the start, and its end once started.
    arena_minutes = models.PositiveIntegerField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    #: Arena: after two wins in a row a win scores double until a result that is not a win.
    streaks = models.BooleanField(default=True)
    #: Arena (Fischer and byo-yomi clocks): a player may halve their own bank before their
    #: first move of a match, for one more point on a win.
    berserk = models.BooleanField(default=False)
    #: Arena and Swiss: bot accounts may enter (every entrant sees it before joining).
    admit_bots = models.BooleanField(default=False)
    #: The last event's number (``TournamentEvent.seq``), counted under the tournament's lock.
    events_seq = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["status", "starts_at"], name="tournament_status_start"),
        ]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        WITHDRAWN = "withdrawn"
        DISQUALIFIED = "disqualified"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    #: The player's rating ordinal for the game when they entered (seeding, last tie-break).
    rating = models.FloatField(default=0.0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    #: False for an invitation not yet accepted (invitation-only tournaments).
    joined = models.BooleanField(default=True)
    joined_at = models.DateTimeField(null=True, blank=True)
    left_at = models.DateTimeField(null=True, blank=True)
    invited = models.BooleanField(default=False)
    #: Arena: points and wins in a row so far (tournaments/pairing/arena.py), kept as each
    #: table is recorded, so a wave ranks the waiting without reading every table.
    points = models.IntegerField(default=0)
    wins_in_row = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_one_per_user"),
        ]

    def __str__(self) -> str:
        return f"entry {self.user_id} in {self.tournament_id}"


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_rows")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    limit_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_one_per_number"),
        ]

    def __str__(self) -> str:
        return f"round {self.number} of {self.tournament_id}"


class TournamentMatch(models.Model):
    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="tables")
    #: Null for a forfeit recorded without a match (a withdrawn player's round-robin game).
    match = models.OneToOneField(
        "games.Match",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournament_table",
    )
    #: User ids in seat order.
    players = models.JSONField()
    decided_by_stand_in = models.BooleanField("decided by the stand-in bot", default=False)
    #: Once finished: groups of seat indices best first (as ``Match.result["ranking"]``).
    ranking = models.JSONField(null=True, blank=True)
    #: User ids who lost this table by forfeit (withdrawn, disqualified).
    forfeited = models.JSONField(default=list, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: Arena: user ids who berserked at this table (halved their bank before their first move).
    berserk = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name_plural = "tournament matches"

    def __str__(self) -> str:
        return f"table {self.pk} of round {self.round_id}"


class TournamentBye(models.Model):
    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="byes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "user"], name="bye_one_per_round"),
        ]

    def __str__(self) -> str:
        return f"bye of {self.user_id} in round {self.round_id}"


class TournamentEvent(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    at = models.DateTimeField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_event_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.type} #{self.seq} of {self.tournament_id}"
