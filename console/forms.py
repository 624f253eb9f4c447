"""The console's forms: every action asks for a reason."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.catalog import bots_of
from games.models import Match, Seat, SeatOffer
from games.services import operators
from games.services.deadlines import MAX_STEP_SECONDS

MAX_REASON = operators.MAX_REASON


def seat_label(seat: Seat) -> str:
    player = seat.user.username if seat.user is not None else "—"
    bot = f", bot {seat.bot}" if seat.bot else ""
    return f"{seat.index}: {player}{bot}"


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. Recorded with your username."),
    )

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.match = match


class StepReasonForm(ReasonForm):
    """A change to the open step: refused if the match moved on since the page was shown."""

    step = forms.IntegerField(widget=forms.HiddenInput, required=False)


class ExtendForm(StepReasonForm):
    seconds = forms.IntegerField(
        label=_("Seconds"), min_value=1, max_value=MAX_STEP_SECONDS, initial=3600
    )


def _seats(match: Match | None) -> list[Seat]:
    assert match is not None
    return list(match.seats.select_related("user").order_by("index"))


class ReplaceSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(label=_("Seat"), coerce=int)
    bot = forms.ChoiceField(label=_("Bot"))

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, seat_label(seat))
            for seat in _seats(match)
            if seat.user_id is not None
            and not seat.forfeited
            and seat.controlled_by == Seat.Controller.PLAYER
        ]
        assert match is not None
        names = sorted(bots_of(match.game))
        self.fields["bot"].choices = [(name, name) for name in names]  # type: ignore[attr-defined]
        if operators.DEFAULT_BOT in names:
            self.fields["bot"].initial = operators.DEFAULT_BOT


class ReturnSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(label=_("Seat"), coerce=int)

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, seat_label(seat))
            for seat in _seats(match)
            if seat.user_id is not None
            and not seat.forfeited
            and seat.controlled_by == Seat.Controller.BOT
        ]


class OfferSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(label=_("Seat"), coerce=int)
    invitee = forms.CharField(
        label=_("Invitee"),
        max_length=150,
        required=False,
        help_text=_("A username; empty: an open seat anyone may take in the lobby."),
    )

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        self.fields["seat"].choices = [  # type: ignore[attr-defined]
            (seat.index, seat_label(seat))
            for seat in _seats(match)
            if seat.user_id is not None and seat.forfeited
        ]


class WithdrawOfferForm(ReasonForm):
    offer = forms.TypedChoiceField(label=_("Offer"), coerce=int)

    def __init__(self, *args: Any, match: Match | None = None, **kwargs: Any) -> None:
        super().__init__(*args, match=match, **kwargs)
        assert match is not None
        offers = SeatOffer.objects.filter(match_id=match.pk, status=SeatOffer.Status.OPEN)
        self.fields["offer"].choices = [  # type: ignore[attr-defined]
            (offer.pk, f"{offer.pk}: seat {offer.seat}") for offer in offers.order_by("pk")
        ]


class DisqualifyForm(forms.Form):
    username = forms.ChoiceField(label=_("Player"))
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. Recorded with your username."),
    )

    def __init__(self, *args: Any, players: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].choices = [(name, name) for name in players]  # type: ignore[attr-defined]


class TournamentReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. Recorded with your username."),
    )


class RevokeTokenForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. Recorded with your username."),
    )
