"""Enter a bot account on a game's ladder and play whatever the server pairs it with, until
stopped (Ctrl-C) or FACEDOWN_MATCHES matches are over; then leave the ladder.

    FACEDOWN_URL=http://127.0.0.1:8000 FACEDOWN_TOKEN=fdp_… python examples/ladder_bot.py gops

The token is a bot account's ``bot:play`` token (docs/programs.md). Nobody has to challenge
the bot: an entry is its standing consent to be paired with the ladder's other entrants.
"""

from __future__ import annotations

import os
import sys

from facedown_client import Bot, Client, SeatView, run
from facedown_client.types import Move


class Lowest(Bot):
    def choose(self, view: SeatView) -> Move:
        return min(view.legal_moves, key=lambda move: move["card"])


def main() -> None:
    game = sys.argv[1] if len(sys.argv) > 1 else "gops"
    limit = os.environ.get("FACEDOWN_MATCHES")
    client = Client.from_env()  # FACEDOWN_URL, FACEDOWN_TOKEN (or FACEDOWN_TOKEN_FILE)
    # What the bot accepts: 3-card deals, two seats, one match at a time (and the default
    # time control: 60 s a step).
    entry = client.ladder.enter(game, seats=[2], options=[{"num_cards": 3}], max_concurrent=1)
    print(f"entered the {game} ladder: rating {entry['rating']}")
    try:
        report = run(client, Lowest(), max_matches=int(limit) if limit else None)
    finally:
        client.ladder.leave(game)
    after = client.ladder.entry(game)
    low, high = after["interval"]
    print(f"finished {len(report.finished)} matches; ladder rating {after['rating']}")
    print(f"strength (mu ± 2 sigma): {low:.1f} to {high:.1f}")
    client.close()


if __name__ == "__main__":
    main()
