from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    """A player or operator. Custom from day one so fields can be added without pain."""

    #: The user has somewhere notifications go outside the site (a verified e-mail address, a
    #: webhook or a Web Push subscription). Kept by ``notify.offsite``; read with the seats a
    #: match change locks, so a change whose players have none enqueues no outbound job. It
    #: may be true without need (harmless: the job finds nothing), never false with one.
    offsite_channels = models.BooleanField(default=False, db_default=False)
    #: A program's account (docs/programs.md): it plays only with ``bot:play`` tokens, is
    #: labelled wherever players are listed and rated apart from people. Set once, before the
    #: account has played; never unset.
    is_bot = models.BooleanField(default=False, db_default=False)
    #: The player's time zone (IANA name): where their weekend is, for matches that pause on
    #: weekends. Recorded in a match when it starts.
    time_zone = models.CharField(max_length=64, default="UTC", db_default="UTC")
    #: The vacation bank (games/services/vacations.py): seconds saved as of
    #: ``vacation_counted_at``; it accrues from then on, up to its cap.
    vacation_seconds = models.FloatField(default=0.0, db_default=0.0)
    vacation_counted_at = models.DateTimeField(null=True, blank=True)
    #: The vacation under way: it holds the player's correspondence clocks until then.
    vacation_started_at = models.DateTimeField(null=True, blank=True)
    vacation_until = models.DateTimeField(null=True, blank=True)
    #: Start a vacation by itself when a correspondence clock would run out (opt-out).
    auto_vacation = models.BooleanField(default=True, db_default=True)
    #: The language the player chose (one of ``settings.LANGUAGES``), "" for none: pages then
    #: follow the browser, mail and pushes the default (core/languages.py).
    language = models.CharField(max_length=16, blank=True, default="", db_default="")
    #: Whose challenges and invitations reach the player (games/services/consent.py):
    #: ``anyone``, or only ``opponents`` (accounts they finished a match with).
    invitations_from = models.CharField(
        max_length=16,
        choices=[("anyone", "anyone"), ("opponents", "opponents")],
        default="anyone",
        db_default="anyone",
    )
    #: Whether bot accounts' challenges and invitations reach the player.
    invitations_from_bots = models.BooleanField(default=True, db_default=True)
    #: The match page's screen-reader mode (web/static/web/reader.js): a text table, single-key
    #: queries and moves typed or chosen from a list. Kept on the account so every device has it.
    screen_reader = models.BooleanField(default=False, db_default=False)
    #: Sanctions in force (moderation/sanctions.py keeps them; accounts/sanctions.py reads
    #: them from the requester's row, never a table of sanctions): until
    #: then the account may start no match, challenge, seek or tournament entry, resp. write
    #: no chat message. ``accounts.sanctions.FOREVER`` for a sanction without an end.
    play_suspended_until = models.DateTimeField(null=True, blank=True)
    chat_muted_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_user"
        constraints = [
            # Names are unique regardless of case (accounts/usernames.py), even under a race.
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]


class RevocationClock(models.Model):
    """One row: the number of the last token revocation. Revoking transactions increment it
    under its row lock, so the numbers are handed out in commit order (a sequence is not)."""

    seq = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"revocation clock at {self.seq}"


class TokenRevocation(models.Model):
    """A user's tokens were revoked (logout, token reset, password change, deactivation): every
    web process reads the rows past the last number it saw, at most a second apart, and drops
    that user from its token cache (``accounts.authentication``)."""

    seq = models.BigIntegerField(unique=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"revocation {self.seq} of user {self.user_id}"


class AccessToken(models.Model):
    """A named personal access token (docs/programs.md): its secret is shown once and kept
    only as a SHA-256 digest, the key it is looked up by (a secret of 160 random bits needs no
    slow hash). ``scopes`` limit what it may do (``accounts.scopes``)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    #: Written at most once a minute per token (``accounts.authentication``).
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self) -> str:
        return f"token {self.name!r} of user {self.user_id}"
