"""Starting a match against a house bot the way a client does."""

from __future__ import annotations

from typing import Any

from facedown_client import ApiError, Client


def match_against_house_bot(client: Client, game: str, bot: str, options: dict[str, Any]) -> str:
    """A challenge to the house bot (accepted at once) where the server has challenges; on a
    server without them (404), a match with a bot seat. Returns the match id."""
    try:
        challenge = client.challenge(game, house_bot=bot, options=options, rated=False)
    except ApiError as error:
        if error.status != 404:
            raise
        created = client.create_match(game, ["me", {"bot": bot}], options=options, rated=False)
        return str(created["id"])
    assert challenge["status"] == "accepted", challenge
    return str(challenge["match_id"])
