"""The deadline calendar: an iCalendar feed of the moves waiting for a user.

``GET /api/v1/accounts/me/deadlines.ics?key=…`` is read by calendar apps, which send no token:
the private key in the URL is the credential (reset it to revoke a leaked URL). One event per
match whose open phase waits for the user and has a deadline, at the deadline, with the game,
the step and a link: nothing else about the match. Its words are in the owner's language.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext
from icalendar import Calendar, Event

from core.languages import language_of
from notify.mail import waiting_matches
from notify.models import NotificationSettings

#: The ``calendar_key`` column's length: a longer key names no calendar.
CALENDAR_KEY_MAX_LENGTH = 64


def calendar_feed(key: str) -> bytes | None:
    """The feed for the user holding ``key``, or None for an unknown key."""
    prefs = NotificationSettings.objects.filter(calendar_key=key).select_related("user").first()
    if prefs is None or not key or not prefs.user.is_active:
        return None
    with translation.override(language_of(prefs.user)):
        return _feed(prefs.user_id)


def _feed(user_id: int) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", "-//Facedown//deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", gettext("Facedown: your moves"))
    now = timezone.now()
    base = settings.FACEDOWN_PUBLIC_URL.rstrip("/")
    for match, deadline in waiting_matches(user_id):
        if deadline is None:
            continue
        event = Event()
        event.add("uid", f"{match.pk}-{match.step}-{match.phase_kind}@facedown")
        event.add("dtstamp", now)
        event.add("dtstart", deadline - timedelta(minutes=15))
        event.add("dtend", deadline)
        words = {"game": match.game, "step": match.step}
        event.add("summary", gettext("Your move: %(game)s, step %(step)s") % words)
        event.add("url", f"{base}/matches/{match.pk}")
        due = f"{deadline:%Y-%m-%d %H:%M}"
        event.add("description", gettext("Due %(when)s UTC.") % {"when": due})
        calendar.add_component(event)
    return bytes(calendar.to_ical())
