"""The notification kinds and the typed record every channel receives.

A notification tells one user that something happened in one match (or, for the tournament
kinds, in one tournament: then ``tournament_id`` names it). It carries only what
every seat of the match may read (the game, the step, the public deadline, whom a step waits
for): never a move, a card or anything else the rules keep hidden, so a channel may forward it
as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

Kind = Literal[
    "your_move",
    "step_resolved",
    "match_started",
    "match_finished",
    "invited",
    "deadline_soon",
    "auto_vacation",
    "proposal",
    "proposal_answered",
    "seat_offered",
    "tournament_registration_open",
    "tournament_round_started",
    "tournament_stand_in",
    "tournament_finished",
]
KINDS: tuple[Kind, ...] = get_args(Kind)

#: One line per kind, for the documentation and the OpenAPI description.
DESCRIPTIONS: dict[Kind, str] = {
    "your_move": "A step (or its reveal phase) opened and waits for your seat.",
    "step_resolved": "A step of a match you play in resolved.",
    "match_started": "Every seat was filled: the match started.",
    "match_finished": "The match is over (finished, or aborted).",
    "invited": "Someone created a match with a seat for you.",
    "deadline_soon": "Your clock runs out within 24 hours, or within 1 hour, or its byo-yomi "
    "began (each sent once per step).",
    "auto_vacation": "Your clock ran out in a correspondence match and your vacation bank took "
    "over: your clocks are held until `until` (turn automatic vacations off: "
    "PATCH /accounts/me/vacation).",
    "proposal": "A player of your match proposed a pause or an abort: accept or decline it.",
    "proposal_answered": "Your proposal was accepted by everyone (it took effect) or declined.",
    "seat_offered": "A seat its player left in a correspondence match is offered to you: take it "
    "over or decline (POST /matches/{id}/substitutes/{offer}/accept).",
    "tournament_registration_open": "You were invited to a tournament (`tournament`): join it "
    "(POST /tournaments/{id}/join) or decline (POST /tournaments/{id}/decline).",
    "tournament_round_started": "A round of your tournament started: your match (`match`), "
    "`round`, your `opponents` and the round's `deadline`.",
    "tournament_stand_in": "Your tournament match reached the round's time limit: the "
    "stand-in bot plays it to the end.",
    "tournament_finished": "Your tournament is over: your `place` of `players`.",
}


@dataclass(frozen=True)
class Notification:
    """One notification for one user. ``id`` is stable for the same occurrence, so a channel
    that sees it twice (a retried task) can deliver it once."""

    id: str
    user_id: int
    type: Kind
    #: Empty for a notification about a whole tournament.
    match_id: str
    at: datetime
    #: Public extra data: ``game``, ``step``, and per kind ``deadline``, ``phase``,
    #: ``within``, ``outcome``, ``by``, ``proposal``, ``kind``, ``until``, ``answer``,
    #: ``offer``, ``seat``.
    data: Mapping[str, Any] = field(default_factory=dict)
    #: Whether the user may have destinations outside the site (``User.offsite_channels``);
    #: true when unknown. Not sent: it only spares the outbound job when nobody has one.
    offsite: bool = True
    #: The tournament, for the tournament kinds.
    tournament_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The notification as channels send it (the user is the recipient, not a field)."""
        return {
            "id": self.id,
            "type": self.type,
            "match": self.match_id or None,
            "at": self.at.isoformat().replace("+00:00", "Z"),
            **({"tournament": self.tournament_id} if self.tournament_id else {}),
            **self.data,
        }
