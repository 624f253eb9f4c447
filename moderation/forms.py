"""The console's forms for moderation: each asks for a reason."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import forms
from django.utils.translation import gettext_lazy as _

from moderation.models import Report, Sanction

#: How long a mute or a suspension lasts, in hours ("" for no end).
DURATIONS = [
    ("1", _("one hour")),
    ("24", _("one day")),
    ("168", _("one week")),
    ("720", _("30 days")),
    ("", _("no end (until lifted)")),
]


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3}))


class CloseReportForm(ReasonForm):
    state = forms.ChoiceField(
        label=_("Outcome"),
        choices=[
            (Report.State.HANDLED, Report.State.HANDLED.label),
            (Report.State.DISMISSED, Report.State.DISMISSED.label),
        ],
    )


class SanctionForm(ReasonForm):
    username = forms.CharField(label=_("Player"), max_length=150)
    kind = forms.ChoiceField(label=_("Sanction"), choices=Sanction.Kind.choices)
    duration = forms.ChoiceField(
        label=_("Duration"),
        choices=DURATIONS,
        required=False,
        initial="24",
        help_text=_("For a mute or a suspension; a warning and a closing have no end."),
    )

    def ends_at(self, now: datetime) -> datetime | None:
        hours = self.cleaned_data.get("duration") or ""
        return now + timedelta(hours=int(hours)) if hours else None
