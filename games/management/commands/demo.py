"""Create two demo players and a GOPS match between them, and print how to play it with curl.

Every run creates a new alice-bob match and a new match of alice against a bot, so the printed
walk-through (which starts at step 1) is right on the first and on every later run.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.models import AccessToken, User
from accounts.tokens import token_issue
from games.services.matches import SeatSpec, match_create, match_join

DEMO_PASSWORD = "facedown-demo"


def _player(username: str) -> tuple[User, str]:
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User.objects.create_user(username=username, password=DEMO_PASSWORD)
    # A secret is shown once: each run replaces the last run's demo token with a new one.
    AccessToken.objects.filter(user=user, name="demo").delete()
    return user, token_issue(user, name="demo")[1]


class Command(BaseCommand):
    help = "Create demo players alice and bob, a GOPS match between them and one against a bot."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args: Any, host: str, port: str, **options: Any) -> None:
        # A server on every interface is reached on this machine at 127.0.0.1 too.
        if host in ("", "0.0.0.0", "::"):
            host = "127.0.0.1"
        elif ":" in host:
            host = f"[{host}]"
        alice, alice_token = _player("alice")
        bob, bob_token = _player("bob")
        # A fresh pair of matches on every run: an earlier run's matches may be under way or
        # over, so a walk-through that starts at step 1 is only right for a new match.
        match = match_create(
            creator=alice,
            game="gops",
            seats=[SeatSpec("me"), SeatSpec("user", "bob")],
            options={"num_cards": 5},
        )
        match = match_join(match_id=match.id, user=bob, client_seed="bob-demo-entropy")
        versus_bot = match_create(
            creator=alice,
            game="gops",
            seats=[SeatSpec("me"), SeatSpec("bot", bot="greedy")],
            options={"num_cards": 5},
        )
        base = f"http://{host}:{port}/api/v1"
        self.stdout.write(
            f"""
Facedown is starting at http://{host}:{port}/  (API docs: http://{host}:{port}/api/docs/)

Play in the browser: open http://{host}:{port}/ and log in as alice (or bob), password
{DEMO_PASSWORD}. Alice's newest match against the bot is waiting for her move.

Demo players (password: {DEMO_PASSWORD}):
  alice  token {alice_token}
  bob    token {bob_token}

A five-card GOPS match between them is ready: {match.id}
Paste these into a second terminal to play it:

  export API={base} M={match.id}
  export A="Authorization: Bearer {alice_token}" B="Authorization: Bearer {bob_token}"

  # to follow it live as bob, in a third terminal (docs/live.md):
  #   curl -N -H "$B" $API/matches/$M/stream
  # what alice sees: her hand, the prize in the pot, her legal moves
  curl -s -H "$A" $API/matches/$M
  # both bid for step 1 (sealed: neither sees the other's card until both are in)
  export J='Content-Type: application/json'
  curl -s -H "$A" -H "$J" -d '{{"step": 1, "move": {{"card": 5}}}}' $API/matches/$M/moves
  curl -s -H "$B" -H "$J" -d '{{"step": 1, "move": {{"card": 3}}}}' $API/matches/$M/moves
  # the step resolved: the events show both bids and who took the prize
  curl -s -H "$B" $API/matches/$M/events
  # steps 2 to 4 the same way: any card still in your hand ("legal_moves" in the match)
  curl -s -H "$A" -H "$J" -d '{{"step": 2, "move": {{"card": 4}}}}' $API/matches/$M/moves
  curl -s -H "$B" -H "$J" -d '{{"step": 2, "move": {{"card": 5}}}}' $API/matches/$M/moves
  curl -s -H "$A" -H "$J" -d '{{"step": 3, "move": {{"card": 1}}}}' $API/matches/$M/moves
  curl -s -H "$B" -H "$J" -d '{{"step": 3, "move": {{"card": 2}}}}' $API/matches/$M/moves
  curl -s -H "$A" -H "$J" -d '{{"step": 4, "move": {{"card": 3}}}}' $API/matches/$M/moves
  curl -s -H "$B" -H "$J" -d '{{"step": 4, "move": {{"card": 4}}}}' $API/matches/$M/moves
  # no step 5 to send: each of you holds one card, so the server plays it and the match is
  # over ("status": "finished", the scores and the winner in "result")
  curl -s -H "$A" $API/matches/$M

Alice also has a match against the greedy bot, which answers by itself: {versus_bot.id}

  export V={versus_bot.id}
  curl -s -H "$A" -H "$J" -d '{{"step": 1, "move": {{"card": 4}}}}' $API/matches/$V/moves
  curl -s -H "$A" $API/matches/$V/events     # the bot has bid; the step resolved
"""
        )
