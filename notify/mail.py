"""The e-mail channel: "your move" digests, deadline reminders, results and invitations.

Mail goes only to a verified address (``email_verify_send`` mails a signed link whenever an
address is set) and only for the kinds the user keeps on. The channel enqueues a job; the job
records each notification once in ``MailItem`` (so a retried job mails nothing twice) and sends:

- ``your_move`` waits for the user's digest: at most one mail per
  ``FACEDOWN_MAIL_YOUR_MOVE_INTERVAL`` seconds, listing every match then still waiting for them
  (read when the digest goes out, so a match played meanwhile is left out);
- the other kinds go out at once, one mail each.

Every mail carries a signed one-click unsubscribe link for its kind, also as
``List-Unsubscribe`` with ``List-Unsubscribe-Post`` (RFC 8058). Nothing in a mail is hidden
information: the game, the step, the public deadline and a link to the match.

Every mail is written in its recipient's language (``core.languages.language_of``), whoever
caused it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from accounts.models import User
from core.languages import language_of
from games import dispatch
from games.models import Match, Seat
from games.services.clocks_shown import seat_deadline
from notify.models import MailItem, NotificationSettings
from notify.preferences import CHANGEABLE, MAIL_PREFERENCE, mail_allowed, settings_of

log = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "notify.unsubscribe"
VERIFY_SALT = "notify.verify-email"


def _url(path: str) -> str:
    return settings.FACEDOWN_PUBLIC_URL.rstrip("/") + path


def _match_url(match_id: str) -> str:
    return _url(f"/matches/{match_id}")


# --- signed links ------------------------------------------------------------------------------


def unsubscribe_token(user_id: int, preference: str) -> str:
    # Without a timestamp: the same link for the same preference, valid for ever.
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object({"u": user_id, "p": preference})


def unsubscribe_url(user_id: int, preference: str) -> str:
    token = unsubscribe_token(user_id, preference)
    return _url(f"/api/v1/accounts/notifications/unsubscribe?token={token}")


def unsubscribe(token: str) -> tuple[User, str] | None:
    """Turn off the preference a link names; returns its user and it, or None for a bad link.
    Never expires: an old mail's link must still work."""
    try:
        found = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
        user_id, preference = int(found["u"]), str(found["p"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    user = User.objects.filter(pk=user_id).first()
    if preference not in CHANGEABLE or user is None:
        return None
    prefs = settings_of(user_id)
    setattr(prefs, preference, False)
    prefs.save(update_fields=[preference])
    return user, preference


def email_verify_send(user_id: int) -> bool:
    """Mail a signed link proving the account's current address; the one mail an unverified
    address receives. Returns whether one went out."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email:
        return False
    token = signing.dumps({"u": user.pk, "e": user.email}, salt=VERIFY_SALT)
    link = _url(f"/api/v1/accounts/email/verify?token={token}")
    hours = settings.FACEDOWN_EMAIL_VERIFY_SECONDS // 3600
    with translation.override(language_of(user)):
        subject = gettext("Facedown: confirm your e-mail address")
        body = gettext(
            "The Facedown account %(username)s gave this address.\n\n"
            "To receive its notifications here, open this link within %(hours)s hours:\n"
            "%(link)s\n\n"
            "If this was not you, ignore this message: nothing will be sent to you."
        ) % {"username": user.username, "hours": hours, "link": link}
    EmailMessage(subject, body, to=[user.email]).send()
    return True


def email_verify(token: str) -> User | None:
    """Mark the address a link names as verified, if it is still the account's address."""
    try:
        found = signing.loads(
            token, salt=VERIFY_SALT, max_age=settings.FACEDOWN_EMAIL_VERIFY_SECONDS
        )
        user_id, email = int(found["u"]), str(found["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.email.casefold() != email.casefold():
        return None
    prefs = settings_of(user.pk)
    prefs.verified_email = user.email
    prefs.save(update_fields=["verified_email"])
    return user


# --- sending -----------------------------------------------------------------------------------


def _send(user: User, preference: str, subject: str, body: str) -> None:
    """One notification mail; called with the recipient's language active."""
    link = unsubscribe_url(user.pk, preference)
    EmailMessage(
        gettext("Facedown: %(subject)s") % {"subject": subject},
        body + "\n\n--\n" + gettext("To stop these mails: %(link)s") % {"link": link} + "\n",
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    ).send()


def _deadline_text(value: str | None) -> str:
    if not value:
        return ""
    return " " + gettext("(due %(when)s UTC)") % {"when": value.replace("T", " ")[:16]}


def _single(user: User, item: MailItem) -> None:
    with translation.override(language_of(user)):
        subject, body = _single_text(item)
        _send(user, MAIL_PREFERENCE[item.kind], subject, body)  # type: ignore[index]


def _single_text(item: MailItem) -> tuple[str, str]:
    """A mail's subject and body, in the active language."""
    data, url = item.data, _match_url(str(item.match_id))
    if item.kind.startswith("tournament_"):
        subject, body = _tournament_text(item.kind, data)
        return subject, f"{body}\n{_url('/tournaments/' + str(data.get('tournament', '')))}"
    game = data.get("game", "")
    step = {"step": data.get("step"), "due": _deadline_text(data.get("deadline"))}
    if item.kind == "deadline_soon" and data.get("within") == "byoyomi":
        subject = gettext("your main time in %(game)s is spent: byo-yomi") % {"game": game}
        body = gettext("Step %(step)s%(due)s waits for you:") % step
    elif item.kind == "auto_vacation":
        until = str(data.get("until", "")).replace("T", " ")[:16]
        subject = gettext(
            "your clock in %(game)s ran out: you are on vacation until %(until)s UTC"
        ) % {"game": game, "until": until}
        body = gettext(
            "Your vacation bank took over, so nothing timed out: your clocks in correspondence "
            "matches are held until then. Come back early, or turn automatic vacations off, "
            "on your profile. The match:"
        )
    elif item.kind == "deadline_soon":
        if data.get("within") == "1h":
            subject = gettext("your move in %(game)s is due within 1 hour") % {"game": game}
        else:
            subject = gettext("your move in %(game)s is due within 24 hours") % {"game": game}
        body = gettext("Step %(step)s%(due)s waits for you:") % step
    elif item.kind == "match_finished":
        subject = gettext("your %(game)s match is over") % {"game": game}
        if data.get("outcome") == "aborted":
            body = gettext("The match has been aborted. The result:")
        else:
            body = gettext("The match has ended. The result:")
    elif item.kind in ("proposal", "proposal_answered"):
        subject, body = _proposal_text(data)
    elif item.kind == "seat_offered":
        subject = gettext("%(player)s offers you a seat in %(game)s") % {
            "player": data.get("by", ""),
            "game": game,
        }
        body = gettext(
            "Its player left the match. Take the seat over (its hand and a fresh clock, from "
            "the next step) or decline it:"
        )
    else:  # invited
        by = data.get("by")
        if by:
            subject = gettext("%(player)s invited you to %(game)s") % {"player": by, "game": game}
        else:
            subject = gettext("someone invited you to %(game)s") % {"game": game}
        body = gettext("You have a seat in a new match. Accept or decline it:")
    return subject, f"{body}\n{url}"


def _tournament_text(kind: str, data: dict[str, Any]) -> tuple[str, str]:
    words = {
        "name": data.get("name", ""),
        "round": data.get("round"),
        "place": data.get("place"),
        "players": data.get("players"),
        "opponents": ", ".join(data.get("opponents") or []),
    }
    if kind == "tournament_registration_open":
        subject = gettext("you are invited to the tournament %(name)s") % words
        return subject, gettext("Its registration is open. Join it:")
    if kind == "tournament_round_started":
        subject = gettext("round %(round)s of %(name)s has started") % words
        body = gettext("You play %(opponents)s%(due)s. The tournament:") % {
            **words,
            "due": _deadline_text(data.get("deadline")),
        }
        return subject, body
    if kind == "tournament_stand_in":
        subject = gettext("a stand-in finishes your match in %(name)s") % words
        return subject, gettext(
            "Round %(round)s reached its time limit: the stand-in bot plays your seat to the "
            "end. The tournament:"
        ) % words
    subject = gettext("the tournament %(name)s is over") % words
    return subject, gettext("You finished in place %(place)s of %(players)s. The tournament:") % (
        words
    )


def _proposal_text(data: dict[str, Any]) -> tuple[str, str]:
    words = {"game": data.get("game", "")}
    if data.get("kind") == "pause":
        words["what"] = gettext("a pause until %(until)s UTC") % {
            "until": str(data.get("until"))[:16].replace("T", " ")
        }
    else:
        words["what"] = gettext("an abort")
    if "answer" not in data:
        subject = gettext("%(what)s was proposed in your %(game)s match") % words
        return subject, gettext("Accept or decline it:")
    if data["answer"] == "accepted":
        subject = gettext("%(what)s in your %(game)s match was agreed") % words
        return subject, gettext("It took effect:")
    subject = gettext("your proposal of %(what)s in %(game)s was declined") % words
    return subject, gettext("The match goes on:")


def mail_notifications(items: Sequence[dict[str, Any]]) -> int:
    """The job behind the channel: record each notification once, send or schedule it.
    Returns how many mails went out now."""
    sent = 0
    digests: set[int] = set()
    mailable = [item for item in items if item["type"] in MAIL_PREFERENCE]
    # One query leaves out everyone without a verified address (most players, most moves).
    verified = set(
        NotificationSettings.objects.filter(user_id__in={int(i["user"]) for i in mailable})
        .exclude(verified_email="")
        .values_list("user_id", flat=True)
    )
    for item in mailable:
        kind, user_id = item["type"], int(item["user"])
        if user_id not in verified:
            continue
        user = User.objects.filter(pk=user_id).first()
        if user is None or not mail_allowed(user, settings_of(user_id), MAIL_PREFERENCE[kind]):
            continue
        data = {k: v for k, v in item.items() if k not in ("id", "type", "match", "at", "user")}
        try:
            with transaction.atomic():
                record = MailItem.objects.create(
                    notification_id=item["id"],
                    user_id=user_id,
                    kind=kind,
                    match_id=item["match"],
                    data=data,
                )
        except IntegrityError:
            continue  # recorded by an earlier run of this job
        if kind == "your_move":
            digests.add(user_id)
            continue
        with transaction.atomic():
            claimed = MailItem.objects.filter(pk=record.pk, sent_at=None).update(
                sent_at=timezone.now()
            )
            if claimed:
                _single(user, record)
                sent += 1
    for user_id in digests:
        sent += your_move_digest(user_id)
    return sent


def waiting_matches(user_id: int) -> list[tuple[Match, datetime | None]]:
    """The active matches whose open phase waits for the user's seat, each with the moment
    that seat's own clock runs out (never another seat's: that could tell who has moved)."""
    seats = Seat.objects.filter(
        user_id=user_id,
        forfeited=False,
        controlled_by=Seat.Controller.PLAYER,
        match__status=Match.Status.ACTIVE,
    ).select_related("match")
    return [
        (seat.match, seat_deadline(seat.match, seat.index))
        for seat in seats
        if (seat.match.acting_mask & ~seat.match.submitted_mask) >> seat.index & 1
    ]


def _digest_due(prefs: NotificationSettings, now: datetime) -> datetime | None:
    """When the next digest may go out, if not now."""
    if prefs.your_move_mailed_at is None:
        return None
    due = prefs.your_move_mailed_at + timedelta(seconds=settings.FACEDOWN_MAIL_YOUR_MOVE_INTERVAL)
    return due if due > now else None


def your_move_digest(user_id: int) -> int:
    """Send the user's "your move" digest if one is pending and the interval allows it;
    otherwise schedule this job for when it does. Returns 1 if a mail went out."""
    with transaction.atomic():
        settings_of(user_id)
        prefs = NotificationSettings.objects.select_for_update().get(user_id=user_id)
        pending = MailItem.objects.filter(user_id=user_id, kind="your_move", sent_at=None)
        if not pending.exists():
            return 0
        now = timezone.now()
        if (due := _digest_due(prefs, now)) is not None:
            transaction.on_commit(
                lambda: dispatch.enqueue("mail_your_move_digest", user_id, eta=due), robust=True
            )
            return 0
        user = User.objects.get(pk=user_id)
        waiting = waiting_matches(user_id)
        pending.update(sent_at=now)
        if not waiting or not mail_allowed(user, prefs, "email_your_move"):
            return 0
        with translation.override(language_of(user)):
            lines = [
                gettext("- %(game)s, step %(step)s%(due)s: %(link)s")
                % {
                    "game": m.game,
                    "step": m.step,
                    "due": _deadline_text(_iso(due)),
                    "link": _match_url(str(m.pk)),
                }
                for m, due in sorted(waiting, key=lambda w: (w[1] is None, w[1], str(w[0].pk)))
            ]
            count = len(waiting)
            subject = ngettext(
                "your move in %(count)s match", "your move in %(count)s matches", count
            ) % {"count": count}
            body = gettext("Waiting for you:") + "\n" + "\n".join(lines)
            _send(user, "email_your_move", subject, body)
        prefs.your_move_mailed_at = now
        prefs.save(update_fields=["your_move_mailed_at"])
        return 1


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None
