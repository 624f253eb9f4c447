"""drf-spectacular postprocessing hook: the notification (webhook payload) in the OpenAPI
document, as a ``Notification`` component and a section of the description."""

from __future__ import annotations

from typing import Any

from notify.kinds import DESCRIPTIONS, KINDS

SECTION = """

## Notifications and webhooks

A notification tells one user about one match. Webhooks receive it as the JSON body of a POST
(the `Notification` schema), signed `X-Facedown-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret,
"<t>.<body>")>`; e-mail, Web Push and the user's live stream carry the same facts. It never
carries a move, a card or anything else the rules keep hidden. Types:

{rows}
"""

NOTIFICATION: dict[str, Any] = {
    "type": "object",
    "description": "One notification: a webhook delivery's body.",
    "properties": {
        "id": {"type": "string", "description": "Stable for one occurrence: deduplicate on it."},
        "type": {"type": "string", "enum": list(KINDS)},
        "match": {
            "type": "string",
            "format": "uuid",
            "nullable": True,
            "description": "null for tournament_registration_open and tournament_finished.",
        },
        "tournament": {
            "type": "string",
            "format": "uuid",
            "description": "The tournament kinds: the tournament (GET /tournaments/{id}).",
        },
        "name": {"type": "string", "description": "The tournament kinds: its name."},
        "round": {
            "type": "integer",
            "description": "tournament_round_started, tournament_stand_in: the round.",
        },
        "opponents": {
            "type": "array",
            "items": {"type": "string"},
            "description": "tournament_round_started: the other players of your match.",
        },
        "place": {"type": "integer", "description": "tournament_finished: your final place."},
        "players": {"type": "integer", "description": "tournament_finished: of how many."},
        "at": {"type": "string", "format": "date-time"},
        "game": {"type": "string"},
        "step": {"type": "integer", "nullable": True},
        "phase": {
            "type": "string",
            "description": "your_move, deadline_soon: simultaneous, turn or reveal.",
        },
        "deadline": {
            "type": "string",
            "format": "date-time",
            "nullable": True,
            "description": "your_move, deadline_soon: when the open phase times out; "
            "tournament_round_started: the round's time limit.",
        },
        "within": {
            "type": "string",
            "enum": ["24h", "1h", "byoyomi"],
            "description": "deadline_soon: the window, or byo-yomi began.",
        },
        "outcome": {
            "type": "string",
            "enum": ["finished", "aborted"],
            "description": "match_finished.",
        },
        "by": {
            "type": "string",
            "nullable": True,
            "description": "invited: the creator's name.",
        },
        "proposal": {
            "type": "integer",
            "description": "proposal, proposal_answered: the proposal's id (GET "
            "/matches/{id}/proposals).",
        },
        "kind": {
            "type": "string",
            "enum": ["pause", "abort"],
            "description": "proposal, proposal_answered.",
        },
        "until": {
            "type": "string",
            "format": "date-time",
            "nullable": True,
            "description": "proposal: a pause's end; auto_vacation: the vacation's end.",
        },
        "answer": {
            "type": "string",
            "enum": ["accepted", "declined"],
            "description": "proposal_answered: accepted by everyone (it took effect), or declined.",
        },
    },
    "required": ["id", "type", "match", "at"],
}


def notification_schema(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    rows = "\n".join(f"- `{kind}`: {DESCRIPTIONS[kind]}" for kind in KINDS)
    info = result.setdefault("info", {})
    info["description"] = info.get("description", "") + SECTION.format(rows=rows)
    result.setdefault("components", {}).setdefault("schemas", {})["Notification"] = NOTIFICATION
    return result
