"""A Python client of the Facedown HTTP API v1, and a small framework for program bots.

from facedown_client import Client
client = Client("http://127.0.0.1:8000")
client.login("alice", "facedown-demo")
client.awaiting_me()
"""

from facedown_client.bot import Bot, RunReport, SeatView, run
from facedown_client.client import Client, Commitment
from facedown_client.errors import ApiError, FacedownError
from facedown_client.fairness import canonical_json, commitment_hash, verify_receipt
from facedown_client.streams import StreamItem

__all__ = [
    "ApiError",
    "Bot",
    "Client",
    "Commitment",
    "FacedownError",
    "RunReport",
    "SeatView",
    "StreamItem",
    "canonical_json",
    "commitment_hash",
    "run",
    "verify_receipt",
]
