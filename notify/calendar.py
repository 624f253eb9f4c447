"""The deadline calendar: an iCalendar feed of the moves waiting for a user.

``GET /api/v1/accounts/me/deadlines.ics?key=…`` is read by calendar apps, which send no token:
the private key in the URL is the credential (reset it to revoke a leaked URL). One event per
match whose open phase waits for the user and has a deadline, at the deadline, with the game,
the step and a link: nothing else about the match.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

from notify.mail import waiting_matches
from notify.models import NotificationSettings

#: The ``calendar_key`` column's length: a longer key names no calendar.
CALENDAR_KEY_MAX_LENGTH = 64


def calendar_feed(key: str) -> bytes | None:
    """The feed for the user holding ``key``, or None for an unknown key."""
    prefs = NotificationSettings.objects.filter(calendar_key=key).select_related("user").first()
    if prefs is None or not key or not prefs.user.is_active:
        return None
    calendar = Calendar()
    calendar.add("prodid", "-//Facedown//deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", "Facedown: your moves")
    now = timezone.now()
    base = settings.FACEDOWN_PUBLIC_URL.rstrip("/")
    for match, deadline in waiting_matches(prefs.user_id):
        if deadline is None:
            continue
        event = Event()
        event.add("uid", f"{match.pk}-{match.step}-{match.phase_kind}@facedown")
        event.add("dtstamp", now)
        event.add("dtstart", deadline - timedelta(minutes=15))
        event.add("dtend", deadline)
        event.add("summary", f"Your move: {match.game}, step {match.step}")
        event.add("url", f"{base}/matches/{match.pk}")
        event.add("description", f"Due {deadline:%Y-%m-%d %H:%M} UTC.")
        calendar.add_component(event)
    return bytes(calendar.to_ical())
