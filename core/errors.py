"""Domain errors: each class has a stable machine ``code`` and an HTTP status.

Services raise these; one exception handler (``core.problems``) renders them as RFC 9457
problem+json. Messages never name another seat's hidden data.

Titles and fixed messages are English and marked with ``gettext_noop``: they stay plain
strings wherever they travel, and ``core.problems`` looks them up in the reader's language only
when it writes the problem (the ``code`` never changes). A detail or field message with
parameters is a ``core.text.Text``: its template is looked up the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.translation import gettext_noop


class FacedownError(Exception):
    status: ClassVar[int] = 400
    code: ClassVar[str] = "error"
    title: ClassVar[str] = gettext_noop("Error")
    default_detail: ClassVar[str] = ""

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        self.detail = detail or self.default_detail or self.title
        self.extra = extra
        super().__init__(self.detail)


class ValidationFailed(FacedownError):
    status, code, title = 400, "validation_error", gettext_noop("Invalid request")

    def __init__(self, errors: dict[str, list[str]], detail: str | None = None) -> None:
        super().__init__(detail or gettext_noop("The request has invalid fields."), errors=errors)


class InvalidCredentials(ValidationFailed):
    def __init__(self) -> None:
        super().__init__(
            {"non_field_errors": [gettext_noop("Unable to log in with the provided credentials.")]}
        )


class NotSupported(FacedownError):
    status, code, title = 400, "not_supported", gettext_noop("Not supported")


class PayloadTooLarge(FacedownError):
    status, code, title = 413, "payload_too_large", gettext_noop("Payload too large")
    default_detail = gettext_noop("The request body is larger than this server accepts.")


class IllegalMove(FacedownError):
    status, code, title = 400, "illegal_move", gettext_noop("Illegal move")


class NotSeated(FacedownError):
    status, code, title = 403, "not_seated", gettext_noop("Not seated")
    default_detail = gettext_noop("You do not hold a seat in this match.")


class PermissionDenied(FacedownError):
    status, code, title = 403, "permission_denied", gettext_noop("Permission denied")


class NotFound(FacedownError):
    status, code, title = 404, "not_found", gettext_noop("Not found")


class StaleStep(FacedownError):
    status, code, title = 409, "stale_step", gettext_noop("Stale step")


class MatchNotActive(FacedownError):
    status, code, title = 409, "match_not_active", gettext_noop("Match not active")


class WrongPhase(FacedownError):
    status, code, title = 409, "wrong_phase", gettext_noop("Wrong phase")


class NotYourTurn(FacedownError):
    status, code, title = 409, "not_your_turn", gettext_noop("Not your turn")
    default_detail = gettext_noop("Your seat is not to act in this step.")


class AlreadySubmitted(FacedownError):
    status, code, title = 409, "already_submitted", gettext_noop("Already submitted")
    default_detail = gettext_noop(
        "A different move is already recorded for your seat in this step."
    )


class MatchNotFinished(FacedownError):
    status, code, title = 409, "match_not_finished", gettext_noop("Match not finished")


class SeatTaken(FacedownError):
    status, code, title = 409, "seat_taken", gettext_noop("Seat taken")


class AlreadySeated(FacedownError):
    status, code, title = 409, "already_seated", gettext_noop("Already seated")


class CommitmentMismatch(FacedownError):
    status, code, title = 409, "commitment_mismatch", gettext_noop("Commitment mismatch")


class CommitmentReused(FacedownError):
    status, code, title = 409, "commitment_reused", gettext_noop("Commitment reused")


class AlreadySeeking(FacedownError):
    status, code, title = 409, "already_seeking", gettext_noop("Already seeking")
    default_detail = gettext_noop(
        "You already have an open seek for this game, player count and options."
    )


class SeekClosed(FacedownError):
    status, code, title = 409, "seek_closed", gettext_noop("Seek closed")


class ChatDisabled(FacedownError):
    status, code, title = 409, "chat_disabled", gettext_noop("Chat disabled")
    default_detail = gettext_noop("This match was created without chat.")


class IdempotencyInProgress(FacedownError):
    status, code, title = 409, "idempotency_in_progress", gettext_noop("Request in progress")
    default_detail = gettext_noop("A request with this Idempotency-Key is still being processed.")


class IdempotencyKeyReused(FacedownError):
    status, code, title = 422, "idempotency_key_reused", gettext_noop("Idempotency key reused")
    default_detail = gettext_noop("This Idempotency-Key was used with a different request body.")


class ServiceUnavailable(FacedownError):
    """The database could not answer: a restart, a failover, a dropped connection, a lock or
    statement timeout. The request may be sent again after ``retry_after`` seconds (the
    ``Retry-After`` header): if the connection dropped just as a move committed, the re-sent
    move answers with its original receipt (or ``stale_step`` with ``recorded: true``)."""

    status, code, title = 503, "service_unavailable", gettext_noop("Service unavailable")
    default_detail = gettext_noop("The service is briefly unavailable; retry shortly.")
    retry_after: ClassVar[int] = 1


class TooManyStreams(FacedownError):
    """The user or the client address holds as many open streams and long-polls as allowed
    (docs/reliability.md); one must close first."""

    status, code, title = 429, "too_many_streams", gettext_noop("Too many open streams")
    default_detail = gettext_noop("Too many streams and long-polls are open; close one and retry.")
    retry_after: ClassVar[int] = 5


class InsufficientScope(FacedownError):
    status, code, title = 403, "insufficient_scope", gettext_noop("Token scope missing")
    default_detail = gettext_noop("This token may not do this.")


class BotRefused(FacedownError):
    status, code, title = 409, "bot_refused", gettext_noop("Cannot become a bot account")


class ChallengeClosed(FacedownError):
    status, code, title = 409, "challenge_closed", gettext_noop("Challenge answered")


class VacationConflict(FacedownError):
    status, code, title = 409, "vacation_conflict", gettext_noop("Vacation already so")


class PauseNotAllowed(FacedownError):
    status, code, title = 409, "pause_not_allowed", gettext_noop("Pause not allowed")
    default_detail = gettext_noop(
        "Only a correspondence match whose time control allows pauses may pause."
    )


class ConditionalMovesUnavailable(FacedownError):
    status, code, title = (
        409,
        "conditional_moves_unavailable",
        gettext_noop("Conditional moves unavailable"),
    )
    default_detail = gettext_noop(
        "Conditional moves are offered in correspondence matches of GOPS and Hols der Geier "
        "under the sealed protocol only."
    )


class ProposalOpen(FacedownError):
    status, code, title = 409, "proposal_open", gettext_noop("A proposal is open")
    default_detail = gettext_noop(
        "The match already has an open proposal: answer or withdraw it first."
    )


class ProposalClosed(FacedownError):
    status, code, title = 409, "proposal_closed", gettext_noop("Proposal closed")
    default_detail = gettext_noop(
        "The proposal was already accepted, declined, withdrawn or expired."
    )


class NoOneToAsk(FacedownError):
    status, code, title = 409, "no_one_to_ask", gettext_noop("No other player")
    default_detail = gettext_noop(
        "No other seated player could accept this proposal: resign instead."
    )


class AlreadyAnswered(FacedownError):
    status, code, title = 409, "already_answered", gettext_noop("Already answered")
    default_detail = gettext_noop("Your seat has already accepted this proposal.")


class SeatNotOfferable(FacedownError):
    status, code, title = 409, "seat_not_offerable", gettext_noop("Seat not offerable")
    default_detail = gettext_noop(
        "Only the seat of a player who resigned, forfeited or timed out of an active "
        "correspondence match may be offered to a substitute."
    )


class SeatOfferOpen(FacedownError):
    status, code, title = 409, "seat_offer_open", gettext_noop("The seat is already offered")
    default_detail = gettext_noop("This seat already has an open offer: withdraw it first.")


class SeatOfferClosed(FacedownError):
    status, code, title = 409, "seat_offer_closed", gettext_noop("Offer closed")
    default_detail = gettext_noop(
        "The offer was already taken, declined or withdrawn, or the match is over."
    )


class PlayedHere(FacedownError):
    status, code, title = 409, "played_in_match", gettext_noop("Already played in this match")
    default_detail = gettext_noop(
        "You hold or held a seat of this match: nobody may play two seats of one match."
    )


class TournamentNotOpen(FacedownError):
    status, code, title = 409, "tournament_not_open", gettext_noop("Tournament not open")
    default_detail = gettext_noop("The tournament does not allow this in its current state.")


class TournamentFull(FacedownError):
    status, code, title = 409, "tournament_full", gettext_noop("Tournament full")
    default_detail = gettext_noop("Every place in this tournament is taken.")


class EntryRefused(FacedownError):
    """``why_not`` in the problem says which entry condition is not met (docs/api.md)."""

    status, code, title = 403, "entry_refused", gettext_noop("Entry refused")
    default_detail = gettext_noop("You do not meet this tournament's entry conditions.")


class AlreadyRegistered(FacedownError):
    status, code, title = 409, "already_registered", gettext_noop("Already registered")
    default_detail = gettext_noop("This player is already registered in the tournament.")


class BerserkRefused(FacedownError):
    status, code, title = 409, "berserk_refused", gettext_noop("Berserk refused")
    default_detail = gettext_noop(
        "Berserk is possible only in your running match of an arena that allows it, before "
        "your first move."
    )


class NotRegistered(FacedownError):
    status, code, title = 409, "not_registered", gettext_noop("Not registered")
    default_detail = gettext_noop("This player is not registered in the tournament.")


class InvitationRefused(FacedownError):
    """The recipient accepts challenges and invitations only from players they finished a
    match with, or not from bot accounts (their account settings, docs/api.md)."""

    status, code, title = 403, "invitation_refused", gettext_noop("Invitation refused")
    default_detail = gettext_noop("This player does not accept challenges or invitations from you.")


class InvitationsExhausted(FacedownError):
    """One account may send another only so many challenges and invitations an hour
    (``FACEDOWN_INVITATIONS_PER_HOUR``), from every source together."""

    status, code, title = 429, "invitations_exhausted", gettext_noop("Too many invitations")
    default_detail = gettext_noop(
        "You sent this player as many challenges and invitations as allowed this hour."
    )


class AlreadyInvited(FacedownError):
    status, code, title = 409, "already_invited", gettext_noop("Already invited")
    default_detail = gettext_noop("This player is already invited and has not answered yet.")


class NotInvited(FacedownError):
    status, code, title = 409, "not_invited", gettext_noop("Not invited")
    default_detail = gettext_noop("You have no open invitation to this tournament.")


class ProposalsExhausted(FacedownError):
    """A seat may make only so many proposals in a match an hour, withdrawn ones counted
    (``FACEDOWN_PROPOSALS_PER_HOUR``)."""

    status, code, title = 429, "proposals_exhausted", gettext_noop("Too many proposals")
    default_detail = gettext_noop(
        "You made as many proposals in this match as allowed this hour; wait before the next."
    )


class BotsNotAllowed(FacedownError):
    status, code, title = 403, "bots_not_allowed", gettext_noop("Bot accounts not allowed")
    default_detail = gettext_noop("This open challenge does not admit bot accounts.")


class Suspended(FacedownError):
    """A moderator suspended the account from play: no new match, challenge, seek or entry."""

    status, code, title = 403, "suspended", gettext_noop("Suspended from play")
    default_detail = gettext_noop(
        "Your account is suspended from play: you cannot start or join matches, challenges, "
        "seeks or tournaments until the suspension ends."
    )


class ChatMuted(FacedownError):
    """A moderator muted the account in chat (not a player's own mute of another)."""

    status, code, title = 403, "chat_muted", gettext_noop("Muted in chat")
    default_detail = gettext_noop("A moderator muted your account in chat until the mute ends.")


class ReportingSuspended(FacedownError):
    status, code, title = 403, "reporting_suspended", gettext_noop("Reporting suspended")
    default_detail = gettext_noop(
        "Too many of your recent reports were dismissed: you cannot report for a while."
    )


class AlreadyReported(FacedownError):
    status, code, title = 409, "already_reported", gettext_noop("Already reported")
    default_detail = gettext_noop("You already reported this; moderators have it.")


class AlreadyAppealed(FacedownError):
    status, code, title = 409, "already_appealed", gettext_noop("Already appealed")
    default_detail = gettext_noop("You can appeal a sanction once.")


class LadderEntriesExhausted(FacedownError):
    """One account holds at most ``FACEDOWN_LADDER_MAX_ENTRIES`` ladder entries (games)."""

    status, code, title = 409, "ladder_entries_exhausted", gettext_noop("Too many ladder entries")
    default_detail = gettext_noop(
        "You are entered on as many ladders as allowed: leave one before entering another."
    )


class NotOnLadder(FacedownError):
    status, code, title = 404, "not_on_ladder", gettext_noop("Not on the ladder")
    default_detail = gettext_noop("You have no entry on this game's ladder.")


class LadderEntryNotPaused(FacedownError):
    status, code, title = 409, "ladder_entry_not_paused", gettext_noop("Entry not paused")
    default_detail = gettext_noop("Only a paused ladder entry can be resumed.")


#: Every code a client may see, with its status: the OpenAPI description lists them.
ERROR_CODES: dict[str, int] = {
    cls.code: cls.status
    for cls in (
        ValidationFailed,
        NotSupported,
        PayloadTooLarge,
        IllegalMove,
        NotSeated,
        PermissionDenied,
        NotFound,
        StaleStep,
        MatchNotActive,
        WrongPhase,
        NotYourTurn,
        AlreadySubmitted,
        MatchNotFinished,
        SeatTaken,
        AlreadySeated,
        CommitmentMismatch,
        CommitmentReused,
        AlreadySeeking,
        SeekClosed,
        ChatDisabled,
        IdempotencyInProgress,
        IdempotencyKeyReused,
        ServiceUnavailable,
        TooManyStreams,
        InsufficientScope,
        BotRefused,
        ChallengeClosed,
        VacationConflict,
        PauseNotAllowed,
        ProposalOpen,
        ProposalClosed,
        NoOneToAsk,
        AlreadyAnswered,
        TournamentNotOpen,
        TournamentFull,
        BerserkRefused,
        EntryRefused,
        AlreadyRegistered,
        NotRegistered,
        ConditionalMovesUnavailable,
        SeatNotOfferable,
        SeatOfferOpen,
        SeatOfferClosed,
        PlayedHere,
        InvitationRefused,
        InvitationsExhausted,
        AlreadyInvited,
        NotInvited,
        ProposalsExhausted,
        BotsNotAllowed,
        Suspended,
        ChatMuted,
        ReportingSuspended,
        AlreadyReported,
        AlreadyAppealed,
        LadderEntriesExhausted,
        NotOnLadder,
        LadderEntryNotPaused,
    )
} | {
    "parse_error": 400,
    "not_authenticated": 401,
    "throttled": 429,
    "method_not_allowed": 405,
    "unsupported_media_type": 415,
    "not_acceptable": 406,
    "server_error": 500,
}
