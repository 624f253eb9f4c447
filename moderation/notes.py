"""Staff notes on an account: written by staff, read by staff, logged."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import PermissionDenied, ValidationFailed
from moderation.log import staff_action_record
from moderation.models import StaffNote


def staff_note_add(*, staff: User, user: User, text: str) -> StaffNote:
    if not (staff.is_active and staff.is_staff and staff.has_perm("moderation.add_staffnote")):
        raise PermissionDenied(gettext_noop("You may not do this."))
    text = (text or "").strip()
    if not text:
        raise ValidationFailed({"text": [gettext_noop("A note is required.")]})
    with transaction.atomic():
        note = StaffNote.objects.create(user=user, author=staff, text=text)
        staff_action_record(
            actor=staff,
            action="staff_note_add",
            reason="",
            subject_user=user,
            changes={"note": note.pk},
        )
    return note
