"""A bot that plays every GOPS and Hols der Geier match waiting for it, bidding the card nearest
the pot's value, and declines challenges to other games.

    FACEDOWN_URL=http://127.0.0.1:8000 FACEDOWN_TOKEN=fdp_… FACEDOWN_MATCHES=1 \
        python examples/pot_value_bot.py
"""

from __future__ import annotations

import os

from facedown_client import Bot, Client, SeatView, run
from facedown_client.types import Challenge, DeclineReason, Move

GAMES = ("gops", "hols-der-geier")


class PotValueBot(Bot):
    def choose(self, view: SeatView) -> Move:
        # Hols der Geier's vultures (negative cards) are worth a fight as much as its mice.
        pot = sum(abs(card) for card in view.view["pot"])
        return min(view.legal_moves, key=lambda move: abs(move["card"] - pot))

    def accept(self, challenge: Challenge) -> bool | DeclineReason:
        return True if challenge["game"] in GAMES else "variant"


def main() -> None:
    client = Client.from_env()  # FACEDOWN_URL, FACEDOWN_TOKEN (or FACEDOWN_TOKEN_FILE)
    limit = os.environ.get("FACEDOWN_MATCHES")
    report = run(client, PotValueBot(), max_matches=int(limit) if limit else None)
    key = client.fairness_key()
    verified = sum(client.verify_receipt(answer["receipt"], key) for answer in report.moves)
    moves = len(report.moves)
    print(f"finished {len(report.finished)} matches; {verified}/{moves} receipts verify")


if __name__ == "__main__":
    main()
