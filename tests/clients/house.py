"""Starting a match against a house bot the way a client does: a challenge to it, accepted at
once."""

from __future__ import annotations

from typing import Any

from facedown_client import Client


def match_against_house_bot(client: Client, game: str, bot: str, options: dict[str, Any]) -> str:
    challenge = client.challenges.create(game, house_bot=bot, options=options, rated=False)
    assert challenge["status"] == "accepted" and challenge["match_id"], challenge
    return str(challenge["match_id"])
