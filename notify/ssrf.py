"""The guard every outgoing request of a user's choosing passes (webhooks, Web Push endpoints).

A user names the URL, so without a guard the server could be made to call its own network:
the database, Redis, a cloud's metadata service. A URL is refused unless it is http(s) and
every address its host resolves to is public: not private, loopback, link-local, multicast,
reserved or unspecified (IPv4, IPv6, and IPv4 mapped into IPv6). ``FACEDOWN_WEBHOOK_ALLOW_PRIVATE``
lifts the address check (tests, a closed network). Redirects are never followed, so a public
URL cannot bounce a request inward. Registering a URL checks the URL itself (an address
literal, a ``localhost`` name); every request resolves the name first and checks each address
it gets. A name that changes its answer between that check and the connection (DNS
rebinding) is the remaining gap, narrowed by the short time between the two.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

LOCAL = "The host is (or resolves to) a private, loopback or link-local address."


class UnsafeTarget(ValueError):
    """The URL may not be called; the message says why (no address is echoed back)."""


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )


def target_check(url: str, *, resolve: bool = True) -> None:
    """Raise ``UnsafeTarget`` unless ``url`` may be called (module docstring). Without
    ``resolve`` (registering a URL) only the URL itself is checked: an address literal, or a
    ``localhost`` name; its DNS answer is checked before every request, where it counts."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeTarget("Only http and https URLs with a host name.")
    if parts.username or parts.password:
        raise UnsafeTarget("No user name or password in the URL.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UnsafeTarget("The port is not valid.") from None
    if settings.FACEDOWN_WEBHOOK_ALLOW_PRIVATE:
        return
    host = parts.hostname.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        raise UnsafeTarget(LOCAL)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None or not resolve:
        if literal is not None and not _public(literal):
            raise UnsafeTarget(LOCAL)
        return
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeTarget("The host name does not resolve.") from None
    addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found}
    if not addresses or not all(_public(address) for address in addresses):
        raise UnsafeTarget(LOCAL)
