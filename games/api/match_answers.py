"""The answer views of a match's pending things (proposals, seat offers): one configuration.

Both are answered by a seated player with a play token, under the moves throttle, and are
idempotent by key: only the name and the service call differ (core/api/answers.py).
"""

from __future__ import annotations

from accounts import scopes
from core.api.answers import Answer, AnswerFamily
from core.api.schema import IDEMPOTENCY_HEADER
from core.api.throttles import SIGNED_IN_THROTTLES
from games.api.idempotent import idempotent


def match_answer_family(name: str, answer: Answer) -> AnswerFamily:
    """The family of a match's ``name`` ("Proposal", "SeatOffer") answered by ``answer``."""
    return AnswerFamily(
        name=name,
        answer=answer,
        throttle_scope="moves",
        token_scope=scopes.PLAY,
        tags=["matches"],
        throttle_classes=SIGNED_IN_THROTTLES,
        wrap=idempotent,
        parameters=[IDEMPOTENCY_HEADER],
    )
