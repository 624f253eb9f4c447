"""Matches, seats, sealed moves and the append-only event log.

No business logic lives here: services (``games/services``) make every change.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q


class DeclineReason(models.TextChoices):
    """Why a challenge or an invitation was declined (docs/programs.md)."""

    GENERIC = "generic"
    LATER = "later"
    TOO_FAST = "too_fast"
    TOO_SLOW = "too_slow"
    TIME_CONTROL = "time_control"
    RATED = "rated"
    CASUAL = "casual"
    VARIANT = "variant"
    NO_BOT = "no_bot"
    ONLY_BOT = "only_bot"


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        ACTIVE = "active"
        FINISHED = "finished"
        ABORTED = "aborted"

    class Protocol(models.TextChoices):
        SEALED = "sealed"
        COMMIT_REVEAL = "commit-reveal"

    class PhaseKind(models.TextChoices):
        NONE = "none"
        SIMULTANEOUS = "simultaneous"
        REVEAL = "reveal"
        TURN = "turn"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=40, db_index=True)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    protocol = models.CharField(max_length=16, choices=Protocol.choices, default=Protocol.SEALED)
    disclose_submitted = models.BooleanField(default=True)
    # Whether the match has a chat room (social/chat); a setting of creation, never changed.
    # db_default too: a process of the previous release inserting during a rolling upgrade
    # does not know the column.
    chat = models.BooleanField(default=True, db_default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_matches"
    )

    # The engine's state: never serialised directly; views go through the engine's ``view``.
    state = models.JSONField(null=True, blank=True)
    step = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=1)
    last_seq = models.PositiveIntegerField(default=0)
    phase_kind = models.CharField(max_length=16, choices=PhaseKind.choices, default=PhaseKind.NONE)
    # Bitmasks over seat indexes, on the row so that reads and lists need no join.
    acting_mask = models.BigIntegerField(default=0)
    submitted_mask = models.BigIntegerField(default=0)
    scores = models.JSONField(default=list)

    deadline = models.DateTimeField(null=True, blank=True)
    step_opened_at = models.DateTimeField(null=True, blank=True)
    time_control = models.JSONField(null=True, blank=True)
    #: Each seat's clock (``Clock`` in games/time_controls.py) by seat index; null when untimed.
    clocks = models.JSONField(null=True, blank=True)
    #: A pause every seated player agreed to (games/services/pauses.py): no clock counts
    #: before it ends.
    paused_until = models.DateTimeField(null=True, blank=True)
    #: The open pause or abort proposal as every reader sees it (games/services/proposals.py,
    #: ``proposal_on_row``): on the row, so a read or a list needs no join; null once closed.
    proposal = models.JSONField(null=True, blank=True)

    # Fairness: the seed stays secret until the match is over; its hash is public from creation.
    seed = models.CharField(max_length=64)
    seed_sha256 = models.CharField(max_length=64)

    result = models.JSONField(null=True, blank=True)
    #: Whether finishing it updates the players' ratings (``Rating``).
    rated = models.BooleanField(default=True, db_default=True)  # db_default: as ``chat``
    #: The match a seated player asked for after this one finished (one at most).
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    #: The series this match is part of, and its place in it (0-based).
    series = models.ForeignKey(
        "Series", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    series_index = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="match_status_created"),
            models.Index(
                fields=["deadline"], name="match_deadline_active", condition=Q(status="active")
            ),
            # Lists walk matches newest first (the default ordering, the API's cursor).
            models.Index(fields=["-created_at"], name="match_created"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "series_index"],
                name="match_one_per_series_place",
                condition=Q(series__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} {self.id} ({self.status})"

    @staticmethod
    def seats_of(mask: int) -> list[int]:
        return [i for i in range(mask.bit_length()) if mask >> i & 1]

    @property
    def to_act(self) -> list[int]:
        return self.seats_of(self.acting_mask)

    @property
    def submitted(self) -> list[int]:
        return self.seats_of(self.submitted_mask)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)


class Series(models.Model):
    """Matches of one game played one after another, seats rotated by one each time; the
    next match is created when the previous one finishes (``games.services.series``)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=40)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_series"
    )
    length = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return f"{self.game} series {self.id} ({self.length} matches)"


class Rating(models.Model):
    """A player's rating in one game (openskill's mu and sigma) and their record in it.

    Written only in the transaction that finishes a match the player sat in, its rows locked
    in user-id order (``games.locks``). ``ordinal`` (mu - 3 sigma) orders the leaderboard.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    game = models.CharField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    rated_matches = models.PositiveIntegerField(default=0)
    #: Different opponents met in rated matches (``games.services.rating_rules``).
    opponents = models.PositiveIntegerField(default=0, db_default=0)
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="rating_one_per_game"),
        ]
        indexes = [
            models.Index(
                fields=["game", "-ordinal", "user"],
                name="rating_leaderboard",
                condition=Q(rated_matches__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game}: {self.mu:.1f}±{self.sigma:.1f}"


class Seat(models.Model):
    class Controller(models.TextChoices):
        PLAYER = "player"
        BOT = "bot"

    # No index of its own: the unique (match, index) index serves every lookup by match.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    index = models.PositiveSmallIntegerField()
    # Indexed with the match (``seat_user_match``): a user's match ids from the index alone.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
        db_index=False,
    )
    # An invitation names its user at creation; an open seat has none until someone joins.
    invited = models.BooleanField(default=False)
    bot = models.CharField(max_length=40, blank=True, default="")
    bot_options = models.JSONField(default=dict, blank=True)
    bot_memory = models.JSONField(default=dict, blank=True)
    accepted = models.BooleanField(default=False)
    client_seed = models.CharField(max_length=64, blank=True, default="")
    forfeited = models.BooleanField(default=False)
    controlled_by = models.CharField(
        max_length=10, choices=Controller.choices, default=Controller.PLAYER
    )
    # The match waits for this seat's move (active, acting, not submitted, not forfeited):
    # kept by the unit of work on every change, so ``awaiting_me`` reads a small partial index
    # instead of the user's whole history.
    awaiting_move = models.BooleanField(default=False)
    #: The player's vacation (games/services/vacations.py) holds this seat's clock until then;
    #: kept on the seat, read with the lock, so a step opening reads no user row.
    held_until = models.DateTimeField(null=True, blank=True)
    #: A moderator's suspension handed this seat to the stand-in bot
    #: (games/services/suspensions.py): it counts for nobody when the match is rated.
    unrated = models.BooleanField(default=False, db_default=False)

    class Meta:
        ordering = ["match", "index"]
        indexes = [
            models.Index(fields=["user", "match"], name="seat_user_match"),
            models.Index(
                fields=["user"], name="seat_awaiting_user", condition=Q(awaiting_move=True)
            ),
            # The bot seats a match waits for: what the stalled-bots sweep looks for.
            models.Index(
                fields=["match"],
                name="seat_bot_waiting",
                condition=Q(awaiting_move=True, controlled_by="bot"),
            ),
            # The open seats anyone may join (the default list).
            models.Index(
                fields=["match"], name="seat_joinable", condition=Q(user__isnull=True, bot="")
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["match", "user"], name="seat_one_per_user", condition=Q(user__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.match_id}"

    @property
    def is_open(self) -> bool:
        return self.user_id is None and not self.bot

    def awaited_in(self, match: Match) -> bool:
        """Whether ``match`` waits for this seat's move (what ``awaiting_move`` stores)."""
        return (
            match.status == Match.Status.ACTIVE
            and not self.forfeited
            and bool(match.acting_mask >> self.index & 1)
            and not match.submitted_mask >> self.index & 1
        )


class Move(models.Model):
    """A seat's move for one step, sealed: shown to nobody but its owner until the step resolves."""

    class Source(models.TextChoices):
        PLAYER = "player"
        FORCED = "forced"
        TIMEOUT = "timeout"
        FORFEIT = "forfeit"
        BOT = "bot"
        #: A rule the seat's owner set in advance (``ConditionalMoves``), played for them.
        CONDITIONAL = "conditional"

    # No index of its own: the unique (match, step, seat) index serves every lookup by match.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves", db_index=False)
    step = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    payload = models.JSONField(null=True, blank=True)
    commitment = models.CharField(max_length=64, blank=True, default="")
    salt = models.CharField(max_length=128, blank=True, default="")
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.PLAYER)
    receipt = models.JSONField(null=True, blank=True)
    receipt_salt = models.CharField(max_length=64, blank=True, default="")
    # Commit-reveal: ``receipt`` answers the commitment, these the reveal.
    reveal_receipt = models.JSONField(null=True, blank=True)
    reveal_receipt_salt = models.CharField(max_length=64, blank=True, default="")
    submitted_at = models.DateTimeField()

    class Meta:
        ordering = ["match", "step", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "step", "seat"], name="move_one_per_step"),
        ]

    def __str__(self) -> str:
        return f"move {self.match_id}#{self.step}/{self.seat}"


class MatchEvent(models.Model):
    """Append-only, numbered densely per match. ``data`` is public, ``private`` per seat."""

    # No index of its own: the unique (match, seq) index serves every lookup by match.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    step = models.PositiveIntegerField(null=True, blank=True)
    at = models.DateTimeField()
    # Whether ``at`` may be shown: never for another seat's submission.
    show_at = models.BooleanField(default=True)
    data = models.JSONField(null=True, blank=True)
    private = models.JSONField(default=dict, blank=True)
    # Under ``history: table_only`` an action stays readable only until the reader's next move.
    table_only = models.BooleanField(default=False)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="event_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"event {self.match_id}#{self.seq} {self.type}"


class IdempotencyRecord(models.Model):
    """The stored answer to a POST sent with an ``Idempotency-Key``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    completed = models.BooleanField(default=False)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "method", "path", "key"], name="idempotency_unique_key"
            ),
        ]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"


class MatchArchive(models.Model):
    """A finished match's moves and events, moved out of the hot tables (docs/data.md).

    ``transcript`` is zlib-compressed JSON (``facedown-archive-v1``): every column of every
    move and event row but its id, so reads rebuild the rows exactly and answer as before.
    """

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="archive"
    )
    format = models.CharField(max_length=32)
    moves = models.PositiveIntegerField()
    events = models.PositiveIntegerField()
    transcript = models.BinaryField()
    archived_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"archive of {self.match_id}"


class Proposal(models.Model):
    """A pause or an abort one seated player proposed and every other seated human must accept
    (games/services/proposals.py). One open proposal per match at a time."""

    class Kind(models.TextChoices):
        PAUSE = "pause"
        ABORT = "abort"

    class Status(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"
        EXPIRED = "expired"

    # No index of its own: the partial unique index and ``proposal_match_created`` serve it.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="proposals", db_index=False
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    #: The proposing seat's index.
    proposer = models.PositiveSmallIntegerField()
    #: A pause's end.
    until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    #: The seat indexes that accepted so far (the proposer's included).
    accepted = models.JSONField(default=list)
    #: Stored ``open`` until answered; an open one past ``expires_at`` reads as ``expired``.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    answered_at = models.DateTimeField(null=True, blank=True)
    #: The seat that declined or withdrew it.
    answered_by = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "-created_at"]
        indexes = [models.Index(fields=["match", "-created_at"], name="proposal_match_created")]
        constraints = [
            models.UniqueConstraint(
                fields=["match"], name="proposal_one_open_per_match", condition=Q(status="open")
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} proposal {self.pk} of {self.match_id} ({self.status})"


class ConditionalMoves(models.Model):
    """One seat's conditional sealed moves: an ordered list of rules ``{"pot": [values] or
    null, "card": n}`` for its future steps (games/services/conditional.py). Sealed like a
    move: read only by the seat's holder and by the job that plays them, never by a view of
    the match; kept out of the match and seat rows so that no reader of a match loads them.
    Written only under the match's lock."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="+", db_index=False, editable=False
    )
    seat = models.PositiveSmallIntegerField(editable=False)
    rules = models.JSONField(default=list, editable=False)
    updated_at = models.DateTimeField(editable=False)

    class Meta:
        verbose_name_plural = "conditional moves"
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="conditional_one_per_seat"),
        ]

    def __str__(self) -> str:
        return f"conditional moves of seat {self.seat}"


class SeatOffer(models.Model):
    """A seat left by its player (resigned, forfeited, timed out) offered to a substitute, by
    invitation or open to anyone (games/services/substitutes.py). One open offer per seat."""

    class Status(models.TextChoices):
        OPEN = "open"
        TAKEN = "taken"
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"
        #: The match ended before anyone took the seat.
        CLOSED = "closed"

    # No index of its own: the partial unique index and ``seat_offer_match`` serve it.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="seat_offers", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    #: Who offered it: a seated player, the match's creator, or an operator.
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    #: The one user it is offered to; null for an open seat anyone may take.
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="seat_invitations",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    #: Who took it.
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["match", "-created_at"]
        indexes = [
            models.Index(fields=["match", "-created_at"], name="seat_offer_match"),
            # The lobby's open seats, newest first.
            models.Index(
                fields=["-created_at"],
                name="seat_offer_open",
                condition=Q(status="open", invitee__isnull=True),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "seat"], name="seat_offer_one_open", condition=Q(status="open")
            ),
        ]

    def __str__(self) -> str:
        return f"offer {self.pk} of seat {self.seat} of {self.match_id} ({self.status})"


class SeatTenure(models.Model):
    """Who played a seat from which step to which (games/services/substitutes.py): written
    when a substitute takes a seat over, for the player leaving it and for the substitute. A
    seat that never changed hands has none: its player played every step."""

    # No index of its own: the unique (match, seat, from_step) index serves every lookup.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="tenures", db_index=False
    )
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    from_step = models.PositiveIntegerField()
    #: The last step played; null while the seat is still theirs.
    to_step = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat", "from_step"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "seat", "from_step"], name="seat_tenure_one_per_start"
            ),
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} in seat {self.seat} of {self.match_id} from {self.from_step}"


class InvitationCount(models.Model):
    """How many challenges and invitations ``sender`` sent ``recipient`` in the hour that
    began at ``hour_start`` (games/services/consent.py): counted in the database, so every process
    sees one count, and an invitation refused or rolled back is not counted."""

    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    hour_start = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sender", "recipient", "hour_start"], name="invitation_count_one_per_window"
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.count} invitations {self.sender_id} -> {self.recipient_id} at {self.hour_start}"
        )
