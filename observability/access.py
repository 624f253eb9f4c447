"""Who may read ``/metrics``: a bearer token (``FACEDOWN_METRICS_TOKEN``) or a client address
inside ``FACEDOWN_METRICS_NETWORKS`` (CIDRs; the address as ``core.client_address`` finds it,
so ``X-Forwarded-For`` counts only behind the configured proxy hops). With neither set, the
endpoint does not exist (404): metrics are off until an operator says who reads them.
"""

from __future__ import annotations

import hmac
import ipaddress
from enum import Enum
from functools import cache
from typing import Any

from django.conf import settings

from core.client_address import client_address

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Verdict(Enum):
    ALLOWED = "allowed"
    DISABLED = "disabled"  # 404: nothing configured
    UNAUTHENTICATED = "unauthenticated"  # 401: a token is configured, none or another given
    FORBIDDEN = "forbidden"  # 403: only networks are configured, and this address is outside


@cache
def _networks(cidrs: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def _bearer(meta: Any) -> str | None:
    scheme, _, credentials = str(meta.get("HTTP_AUTHORIZATION") or "").partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


def _inside(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def metrics_access(meta: Any) -> Verdict:
    token = str(getattr(settings, "FACEDOWN_METRICS_TOKEN", ""))
    networks = _networks(tuple(getattr(settings, "FACEDOWN_METRICS_NETWORKS", ())))
    if not token and not networks:
        return Verdict.DISABLED
    given = _bearer(meta)
    if token and given is not None and hmac.compare_digest(given.encode(), token.encode()):
        return Verdict.ALLOWED
    if networks and _inside(client_address(meta), networks):
        return Verdict.ALLOWED
    return Verdict.UNAUTHENTICATED if token else Verdict.FORBIDDEN
