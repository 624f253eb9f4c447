"""The demo's sign-in, shown on the login page of the embedded default only (``scripts/run``
creates alice and bob there); a production site never prints a password."""

from __future__ import annotations

from django import template
from django.conf import settings

from games.management.commands.demo import DEMO_PASSWORD

register = template.Library()


@register.simple_tag
def demo_login() -> dict[str, str] | None:
    if settings.FACEDOWN_MODE != "embedded":
        return None
    return {"username": "alice", "other": "bob", "password": DEMO_PASSWORD}
