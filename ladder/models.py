"""The ladder: one standing entry per account and game, the matches the server paired.

An entry is its account's own act (``ladder.services.entries``): it says what the entrant
accepts and holds its ladder rating, a pool apart from every other rating. A ``LadderMatch``
ties a games ``Match`` to the entries seated in it, in seat order, and remembers its result
and whether the standalone verifier accepted its transcript.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LadderEntry(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        PAUSED = "paused"
        LEFT = "left"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ladder_entries"
    )
    game = models.CharField(max_length=40)
    #: Each an option object the engine validated (filled with its defaults).
    options = models.JSONField(default=list)
    #: The table sizes accepted.
    seats = models.JSONField(default=list)
    #: The time controls accepted, each as games validated it (null: untimed).
    time_controls = models.JSONField(default=list)
    max_concurrent = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    #: Why the server paused the entry (``timeouts``); empty unless paused.
    paused_reason = models.CharField(max_length=32, blank=True, default="")
    paused_at = models.DateTimeField(null=True, blank=True)
    #: Ladder matches in a row the entrant lost by timing out or an illegal reveal.
    strikes = models.PositiveSmallIntegerField(default=0)
    #: The ladder rating (openskill, this pool only).
    mu = models.FloatField()
    sigma = models.FloatField()
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    entered_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="ladder_entry_user_game"),
        ]
        indexes = [models.Index(fields=["game", "status"], name="ladder_entry_game_status")]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.game}"


class LadderMatch(models.Model):
    match = models.OneToOneField(
        "games.Match", on_delete=models.CASCADE, primary_key=True, related_name="ladder"
    )
    game = models.CharField(max_length=40)
    #: The entries' ids in seat order.
    entries = models.JSONField()
    started_at = models.DateTimeField()
    #: Set once the match is over and its result recorded.
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The match's ranking (groups of seat indexes, best first); null until recorded.
    ranking = models.JSONField(null=True, blank=True)
    #: Null until the verifier ran over the transcript; then whether it accepted it.
    verified = models.BooleanField(null=True, blank=True)
    verify_problems = models.TextField(blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["game", "finished_at"], name="ladder_match_game_finished"),
        ]

    def __str__(self) -> str:
        return str(self.match_id)
