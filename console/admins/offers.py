"""Seat offers and tenures in the console: read-only lists; an operator withdraws open offers
through the service (the action, with the moderation log), or offers a seat from the match
page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from console.operations import operator_of
from console.records import staff_record
from core.errors import FacedownError
from core.text import said
from games.models import SeatOffer
from games.services import substitutes


class ReadOnlyAdmin(admin.ModelAdmin):
    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatOfferAdmin(ReadOnlyAdmin):
    """Every seat offered to a substitute (games/services/substitutes.py)."""

    list_display = ("id", "match", "seat", "offered_by", "invitee", "status", "taken_by")
    list_filter = ("status",)
    search_fields = ("invitee__username", "offered_by__username", "taken_by__username")
    list_select_related = ("offered_by", "invitee", "taken_by")
    actions = ("withdraw_selected",)

    @admin.action(description=_("Withdraw the selected open offers"))
    def withdraw_selected(self, request: HttpRequest, queryset: QuerySet[SeatOffer]) -> None:
        done, failed = 0, []
        operator = operator_of(request)
        for offer in queryset.filter(status=SeatOffer.Status.OPEN):
            try:
                with transaction.atomic():
                    substitutes.offer_answer(
                        match_id=offer.match_id,
                        offer_id=offer.pk,
                        user=operator,
                        answer="withdraw",
                        operator=True,
                    )
                    staff_record(
                        actor=operator,
                        action="match_withdraw_offer",
                        reason="withdrawn from the list of seat offers",
                        subject_type="match",
                        subject_id=str(offer.match_id),
                        changes={"offer": offer.pk},
                    )
            except FacedownError as exc:
                failed.append(f"{offer.pk}: {said(exc.detail)}")
            else:
                done += 1
        if done:
            self.message_user(request, f"Withdrawn: {done} offer(s).", messages.SUCCESS)
        for failure in failed:
            self.message_user(request, f"Refused for {failure}", messages.ERROR)


class SeatTenureAdmin(ReadOnlyAdmin):
    """Who played which steps of the seats that changed hands."""

    list_display = ("match", "seat", "user", "from_step", "to_step")
    search_fields = ("user__username",)
    list_select_related = ("user",)
