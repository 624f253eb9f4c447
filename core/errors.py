"""Domain errors: each class has a stable machine ``code`` and an HTTP status.

Services raise these; one exception handler (``core.problems``) renders them as RFC 9457
problem+json. Messages never name another seat's hidden data.
"""

from __future__ import annotations

from typing import Any, ClassVar


class FacedownError(Exception):
    status: ClassVar[int] = 400
    code: ClassVar[str] = "error"
    title: ClassVar[str] = "Error"
    default_detail: ClassVar[str] = ""

    def __init__(self, detail: str | None = None, **extra: Any) -> None:
        self.detail = detail or self.default_detail or self.title
        self.extra = extra
        super().__init__(self.detail)


class ValidationFailed(FacedownError):
    status, code, title = 400, "validation_error", "Invalid request"

    def __init__(self, errors: dict[str, list[str]], detail: str | None = None) -> None:
        super().__init__(detail or "The request has invalid fields.", errors=errors)


class InvalidCredentials(ValidationFailed):
    def __init__(self) -> None:
        super().__init__({"non_field_errors": ["Unable to log in with the provided credentials."]})


class NotSupported(FacedownError):
    status, code, title = 400, "not_supported", "Not supported"


class PayloadTooLarge(FacedownError):
    status, code, title = 413, "payload_too_large", "Payload too large"
    default_detail = "The request body is larger than this server accepts."


class IllegalMove(FacedownError):
    status, code, title = 400, "illegal_move", "Illegal move"


class NotSeated(FacedownError):
    status, code, title = 403, "not_seated", "Not seated"
    default_detail = "You do not hold a seat in this match."


class PermissionDenied(FacedownError):
    status, code, title = 403, "permission_denied", "Permission denied"


class NotFound(FacedownError):
    status, code, title = 404, "not_found", "Not found"


class StaleStep(FacedownError):
    status, code, title = 409, "stale_step", "Stale step"


class MatchNotActive(FacedownError):
    status, code, title = 409, "match_not_active", "Match not active"


class WrongPhase(FacedownError):
    status, code, title = 409, "wrong_phase", "Wrong phase"


class NotYourTurn(FacedownError):
    status, code, title = 409, "not_your_turn", "Not your turn"
    default_detail = "Your seat is not to act in this step."


class AlreadySubmitted(FacedownError):
    status, code, title = 409, "already_submitted", "Already submitted"
    default_detail = "A different move is already recorded for your seat in this step."


class MatchNotFinished(FacedownError):
    status, code, title = 409, "match_not_finished", "Match not finished"


class SeatTaken(FacedownError):
    status, code, title = 409, "seat_taken", "Seat taken"


class AlreadySeated(FacedownError):
    status, code, title = 409, "already_seated", "Already seated"


class CommitmentMismatch(FacedownError):
    status, code, title = 409, "commitment_mismatch", "Commitment mismatch"


class CommitmentReused(FacedownError):
    status, code, title = 409, "commitment_reused", "Commitment reused"


class AlreadySeeking(FacedownError):
    status, code, title = 409, "already_seeking", "Already seeking"
    default_detail = "You already have an open seek for this game, player count and options."


class SeekClosed(FacedownError):
    status, code, title = 409, "seek_closed", "Seek closed"


class ChatDisabled(FacedownError):
    status, code, title = 409, "chat_disabled", "Chat disabled"
    default_detail = "This match was created without chat."


class IdempotencyInProgress(FacedownError):
    status, code, title = 409, "idempotency_in_progress", "Request in progress"
    default_detail = "A request with this Idempotency-Key is still being processed."


class IdempotencyKeyReused(FacedownError):
    status, code, title = 422, "idempotency_key_reused", "Idempotency key reused"
    default_detail = "This Idempotency-Key was used with a different request body."


class ServiceUnavailable(FacedownError):
    """The database could not answer: a restart, a failover, a dropped connection, a lock or
    statement timeout. The request may be sent again after ``retry_after`` seconds (the
    ``Retry-After`` header): if the connection dropped just as a move committed, the re-sent
    move answers with its original receipt (or ``stale_step`` with ``recorded: true``)."""

    status, code, title = 503, "service_unavailable", "Service unavailable"
    default_detail = "The service is briefly unavailable; retry shortly."
    retry_after: ClassVar[int] = 1


class TooManyStreams(FacedownError):
    """The user or the client address holds as many open streams and long-polls as allowed
    (docs/reliability.md); one must close first."""

    status, code, title = 429, "too_many_streams", "Too many open streams"
    default_detail = "Too many streams and long-polls are open; close one and retry."
    retry_after: ClassVar[int] = 5


class InsufficientScope(FacedownError):
    status, code, title = 403, "insufficient_scope", "Token scope missing"
    default_detail = "This token may not do this."


class BotRefused(FacedownError):
    status, code, title = 409, "bot_refused", "Cannot become a bot account"


class ChallengeClosed(FacedownError):
    status, code, title = 409, "challenge_closed", "Challenge answered"


class VacationConflict(FacedownError):
    status, code, title = 409, "vacation_conflict", "Vacation already so"


class PauseNotAllowed(FacedownError):
    status, code, title = 409, "pause_not_allowed", "Pause not allowed"
    default_detail = "Only a correspondence match whose time control allows pauses may pause."


class ProposalOpen(FacedownError):
    status, code, title = 409, "proposal_open", "A proposal is open"
    default_detail = "The match already has an open proposal: answer or withdraw it first."


class ProposalClosed(FacedownError):
    status, code, title = 409, "proposal_closed", "Proposal closed"
    default_detail = "The proposal was already accepted, declined, withdrawn or expired."


class NoOneToAsk(FacedownError):
    status, code, title = 409, "no_one_to_ask", "No other player"
    default_detail = "No other seated player could accept this proposal: resign instead."


class AlreadyAnswered(FacedownError):
    status, code, title = 409, "already_answered", "Already answered"
    default_detail = "Your seat has already accepted this proposal."


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
