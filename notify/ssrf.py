"""The guard every outgoing request of a user's choosing passes (webhooks, Web Push endpoints).

A user names the URL, so without a guard the server could be made to call its own network:
the database, Redis, a cloud's metadata service. A URL is refused unless it is http(s) and
every address its host resolves to is public: not private, loopback, link-local, multicast,
reserved or unspecified (IPv4 and IPv6). An IPv6 address that carries an IPv4 address
(mapped ``::ffff:0:0/96``, IPv4-compatible ``::/96``, SIIT ``::ffff:0:0:0/96``, NAT64
``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16``, Teredo ``2001::/32``) reaches that
IPv4 address through a relay or translator, so each IPv4 address it carries must be public
too: ``http://[2002:7f00:1::]/`` is 127.0.0.1. ``FACEDOWN_WEBHOOK_ALLOW_PRIVATE`` lifts the
address check (tests, a closed network). Redirects are never followed, so a public
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
from django.utils.translation import gettext_noop

LOCAL = "The host is (or resolves to) a private, loopback or link-local address."


class UnsafeTarget(ValueError):
    """The URL may not be called; the message says why (no address is echoed back)."""


Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: IPv6 prefixes whose last 32 bits are an IPv4 address (those ``ipaddress`` has no name for).
_IPV4_IN_LAST_32_BITS = tuple(
    ipaddress.IPv6Network(prefix)
    for prefix in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48")
)


def reached(address: Address) -> list[Address]:
    """The addresses a request to ``address`` may reach: itself and every IPv4 address it
    carries (module docstring). An IPv4-mapped address is its IPv4 address alone."""
    if isinstance(address, ipaddress.IPv4Address):
        return [address]
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    found: list[Address] = [address]
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)  # the relay server and the client behind it
    if any(address in prefix for prefix in _IPV4_IN_LAST_32_BITS):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def _public(address: Address) -> bool:
    return all(_public_itself(each) for each in reached(address))


def _public_itself(address: Address) -> bool:
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
        raise UnsafeTarget(gettext_noop("Only http and https URLs with a host name."))
    if parts.username or parts.password:
        raise UnsafeTarget(gettext_noop("No user name or password in the URL."))
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UnsafeTarget(gettext_noop("The port is not valid.")) from None
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
        raise UnsafeTarget(gettext_noop("The host name does not resolve.")) from None
    addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found}
    if not addresses or not all(_public(address) for address in addresses):
        raise UnsafeTarget(LOCAL)
