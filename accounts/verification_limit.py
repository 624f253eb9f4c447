"""At most ``FACEDOWN_EMAIL_VERIFY_PER_ADDRESS`` verification mails per address and UTC day.

Every new address (at registration or on ``PATCH /accounts/me``) is mailed a verification link;
without a limit, anyone could have the server mail any address again and again. Each mail is
counted per case-folded address in the shared cache (Redis, so the limit holds across machines;
each process's own memory only while it is down, like the throttles) before the address is
saved: past the limit the change is refused as a throttle (429 ``throttled`` with
``Retry-After``, until the day ends) and nothing is saved.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from rest_framework.exceptions import Throttled

from core.throttling import counters

DAY = 86_400


class VerificationMailsSpent(Throttled):
    default_detail = "Too many verification mails to this address today; try again tomorrow."


def verification_mail_take(email: str) -> None:
    """Count one verification mail to ``email``; raise ``VerificationMailsSpent`` past the
    day's limit."""
    now = time.time()
    day = int(now // DAY)
    digest = hashlib.sha256(email.strip().casefold().encode()).hexdigest()[:32]
    sent = counters.incr(f"verify-mail:{digest}:{day}", DAY + 1)
    if sent > settings.FACEDOWN_EMAIL_VERIFY_PER_ADDRESS:
        raise VerificationMailsSpent(wait=(day + 1) * DAY - now)
