"""The client's address, trusting ``X-Forwarded-For`` only as far as the proxies we run.

``FACEDOWN_TRUSTED_PROXY_HOPS`` says how many reverse proxies in front of the web processes
append to ``X-Forwarded-For``. With 0 (the default) the header is ignored and the socket's
address (``REMOTE_ADDR``) is the client. With N > 0 the N-th address from the right of the
header is the client: each trusted proxy appended the address it received the request from,
so everything to the left of that entry was written by the client and may be forged. A header
with fewer entries than hops (or none, or a malformed entry) means the request did not come
through every proxy as configured: the socket's address is then all we can trust.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings


def _valid(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address.strip()))
    except ValueError:
        return None


def client_address(meta: Any) -> str:
    """The client's address from a request's ``META`` (a WSGI environ)."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    hops = int(getattr(settings, "FACEDOWN_TRUSTED_PROXY_HOPS", 0))
    if hops <= 0:
        return remote
    forwarded = str(meta.get("HTTP_X_FORWARDED_FOR") or "")
    entries = [entry.strip() for entry in forwarded.split(",") if entry.strip()]
    if len(entries) < hops:
        return remote
    return _valid(entries[-hops]) or remote
