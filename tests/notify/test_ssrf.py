"""The SSRF guard against IPv6 addresses that carry an IPv4 address (6to4, Teredo, NAT64,
IPv4-compatible, IPv4-mapped, SIIT): each carried address must be public too, at
registration and again before every delivery."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from notify.models import Webhook, WebhookDelivery
from notify.ssrf import LOCAL, UnsafeTarget, reached, target_check
from notify.webhooks import webhook_deliver
from tests.players import Player

#: Each reaches 127.0.0.1, 10.0.0.1, 169.254.169.254 or 192.168.1.1.
INWARD = [
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2002:7f00:0001:0000:0000:0000:0000:0000]:8080/hook",
    "https://[2002:a00:1::1]/hook",  # 6to4 of 10.0.0.1
    "http://[2002:a9fe:a9fe::]/latest/meta-data",  # 6to4 of 169.254.169.254
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo, client 127.0.0.1
    "http://[::ffff:7f00:1]/",  # IPv4-mapped
    "http://[::ffff:0:7f00:1]/",  # SIIT IPv4-translated
    "http://[::7f00:1]/",  # IPv4-compatible
    "http://[::c0a8:101]/",  # IPv4-compatible 192.168.1.1
    "http://[64:ff9b::7f00:1]/",  # NAT64 well-known prefix
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b:1::7f00:1]/",  # NAT64 local-use prefix
]


@pytest.mark.parametrize("url", INWARD)
def test_an_ipv6_form_of_an_inward_ipv4_address_is_refused(url: str) -> None:
    for resolve in (False, True):
        with pytest.raises(UnsafeTarget, match="private, loopback or link-local"):
            target_check(url, resolve=resolve)


def test_every_carried_address_is_checked() -> None:
    sixtofour = ipaddress.ip_address("2002:5db8:d822::1")  # 6to4 of a public address
    assert ipaddress.ip_address("93.184.216.34") in reached(sixtofour)
    target_check("http://[2002:5db8:d822::1]/hook")
    teredo = reached(ipaddress.ip_address("2001:0:4136:e378:8000:63bf:80ff:fffe"))
    assert {str(a) for a in teredo[1:]} == {"65.54.227.120", "127.0.0.1"}


@pytest.mark.parametrize("url", INWARD)
def test_registering_such_a_url_is_refused(alice: Player, url: str) -> None:
    answer = alice.post("/accounts/me/webhooks", {"url": url})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    assert "url" in answer.json()["errors"]
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("url", INWARD[:1] + INWARD[4:5] + INWARD[9:10])
def test_a_stored_hook_with_such_a_url_is_not_called(alice: Player, url: str, db: Any) -> None:
    # A hook registered before the guard knew the form: each delivery checks again.
    hook = Webhook.objects.create(user=alice.user, url=url, event_types=["your_move"], secret="s")
    delivery = WebhookDelivery.objects.create(
        webhook=hook, notification_id="n1", event_type="your_move", payload={"id": "n1"}
    )
    assert webhook_deliver(delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert (delivery.error, delivery.response_status, delivery.attempts) == (LOCAL, None, 1)


def test_a_push_endpoint_on_such_an_address_is_refused(alice: Player) -> None:
    body = {"endpoint": INWARD[0] + "push/1", "keys": {"p256dh": "k", "auth": "a"}}
    answer = alice.post("/accounts/me/push-subscriptions", body)
    assert answer.status_code == 400 and "endpoint" in answer.json()["errors"]
