"""A Python client of the Facedown HTTP API v1, and a framework for program bots.

from facedown_client import Client
client = Client.from_env()  # FACEDOWN_URL, FACEDOWN_TOKEN
client.matches.awaiting_me()
"""

from facedown_client.bot import Bot, RunReport, SeatView, run
from facedown_client.client import Client, Commitment
from facedown_client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    FacedownError,
    Forbidden,
    Gone,
    NotAuthenticated,
    NotFound,
    ScopeRefused,
    ServerError,
    Throttled,
)
from facedown_client.fairness import canonical_json, commitment_hash, verify_receipt
from facedown_client.streams import StreamItem

__version__ = "0.2.0"

__all__ = [
    "ApiError",
    "BadRequest",
    "Bot",
    "Client",
    "Commitment",
    "Conflict",
    "FacedownError",
    "Forbidden",
    "Gone",
    "NotAuthenticated",
    "NotFound",
    "RunReport",
    "ScopeRefused",
    "SeatView",
    "ServerError",
    "StreamItem",
    "Throttled",
    "__version__",
    "canonical_json",
    "commitment_hash",
    "run",
    "verify_receipt",
]
