from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.serializers import StrictBooleanField, StrictCharField, StrictSerializer
from notify.kinds import DESCRIPTIONS, KINDS


class PreferencesInput(StrictSerializer):
    email_your_move = StrictBooleanField(required=False)
    email_deadline_soon = StrictBooleanField(required=False)
    email_match_finished = StrictBooleanField(required=False)
    email_invited = StrictBooleanField(required=False)
    push_your_move = StrictBooleanField(required=False)
    push_deadline_soon = StrictBooleanField(required=False)
    email_proposals = StrictBooleanField(required=False)
    push_proposals = StrictBooleanField(required=False)
    email_tournaments = StrictBooleanField(required=False)
    push_tournaments = StrictBooleanField(required=False)


class PreferencesOutput(serializers.Serializer):
    email_your_move = serializers.BooleanField(
        help_text="Mail a digest of the matches waiting for you, at most one per interval."
    )
    email_deadline_soon = serializers.BooleanField(
        help_text="Mail when a move is due in 24 h / 1 h."
    )
    email_match_finished = serializers.BooleanField()
    email_invited = serializers.BooleanField()
    push_your_move = serializers.BooleanField()
    push_deadline_soon = serializers.BooleanField()
    email_proposals = serializers.BooleanField(
        help_text="Mail when a player proposes a pause or an abort, and when yours is answered."
    )
    push_proposals = serializers.BooleanField()
    email_tournaments = serializers.BooleanField(
        help_text="Mail when a tournament you are invited to opens, a round starts, a stand-in "
        "decides your match, or it finishes."
    )
    push_tournaments = serializers.BooleanField()
    email = serializers.CharField(help_text="The account's address, or an empty string.")
    email_verified = serializers.BooleanField(
        help_text="Whether that address was verified; mail goes only to a verified address."
    )
    your_move_interval_seconds = serializers.IntegerField()
    calendar_url = serializers.CharField(
        help_text="Your private deadline calendar (iCalendar); anyone with it can read it."
    )


class WebhookInput(StrictSerializer):
    url = serializers.URLField(max_length=2000)
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=list(KINDS)),
        required=False,
        allow_empty=False,
        help_text="The notification types to deliver; all of them when left out.",
    )


class WebhookOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=list(KINDS)))
    active = serializers.BooleanField(
        help_text="False once deliveries kept failing (then register it again)."
    )
    failures_in_a_row = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    disabled_at = serializers.DateTimeField(allow_null=True)


class WebhookCreatedOutput(WebhookOutput):
    secret = serializers.CharField(
        help_text="The signing secret, shown only in this answer: keep it to verify deliveries."
    )


class DeliveryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    notification = serializers.CharField(source="notification_id")
    event_type = serializers.CharField()
    status = serializers.CharField(
        help_text="pending (being tried, or waiting for a retry), delivered or failed (gave up)."
    )
    attempts = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)


class PushKeysInput(StrictSerializer):
    p256dh = StrictCharField(max_length=200)
    auth = StrictCharField(max_length=100)


class PushSubscriptionInput(StrictSerializer):
    """A ``PushSubscription.toJSON()`` from the browser."""

    endpoint = serializers.URLField(max_length=2000)
    keys = PushKeysInput()
    expirationTime = serializers.IntegerField(required=False, allow_null=True)


class PushSubscriptionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    endpoint = serializers.CharField()
    created_at = serializers.DateTimeField()


class PushKeyOutput(serializers.Serializer):
    public_key = serializers.CharField(
        allow_blank=True,
        help_text="The VAPID public key (base64url) to subscribe with; empty when this server "
        "sends no Web Push.",
    )


class CalendarKeyOutput(serializers.Serializer):
    calendar_url = serializers.CharField()


class TokenQuery(StrictSerializer):
    token = StrictCharField(max_length=500)


class DoneOutput(serializers.Serializer):
    detail = serializers.CharField()


def kinds_table() -> str:
    return "\n".join(f"- `{kind}`: {DESCRIPTIONS[kind]}" for kind in KINDS)


def notification_example() -> dict[str, Any]:
    return {
        "id": "your_move:6f1c…:7:42",
        "type": "your_move",
        "match": "6f1c2a9e-…",
        "at": "2026-11-22T20:00:00Z",
        "game": "gops",
        "step": 3,
        "phase": "simultaneous",
        "deadline": "2026-11-23T20:00:00Z",
    }
