from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.scopes import SCOPES
from accounts.usernames import username_normalise, username_refusal
from core.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)


class RegisterInput(StrictSerializer):
    username = StrictCharField(max_length=60, trim_whitespace=False)
    password = StrictCharField(write_only=True, max_length=128, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True)

    def validate_username(self, value: str) -> str:
        name = username_normalise(value)
        refusal = username_refusal(name)
        if refusal is not None:
            raise serializers.ValidationError(refusal)
        return name


class RegisterOutput(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False)
    name = StrictCharField(
        required=False, max_length=100, help_text='What the token is for; "login" if omitted.'
    )
    scopes = serializers.ListField(
        child=serializers.ChoiceField(SCOPES),
        required=False,
        max_length=len(SCOPES),
        help_text="Every scope the account may use if omitted (docs/programs.md).",
    )
    expires_in = StrictIntegerField(
        required=False,
        min_value=60,
        max_value=366 * 86400,
        help_text="Seconds until the token stops working; never if omitted.",
    )
    replace = StrictBooleanField(
        required=False,
        default=False,
        help_text="Revoke the account's tokens of this name first: logging in again replaces "
        "the token instead of adding one (docs/programs.md).",
    )


class AccessTokenInput(StrictSerializer):
    name = StrictCharField(max_length=100)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(SCOPES), min_length=1, max_length=len(SCOPES)
    )
    expires_in = StrictIntegerField(required=False, min_value=60, max_value=366 * 86400)


class AccessTokenOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(SCOPES))
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="Updated at most once a minute."
    )


class AccessTokenCreatedOutput(AccessTokenOutput):
    token = serializers.CharField(help_text="The secret: shown this once, never again.")


class TokenRotateInput(StrictSerializer):
    current_password = StrictCharField(max_length=128, trim_whitespace=False)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


class PasswordChangeInput(StrictSerializer):
    current_password = StrictCharField(max_length=128, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class PasswordResetInput(StrictSerializer):
    email = serializers.EmailField()


class PasswordResetConfirmInput(StrictSerializer):
    uid = StrictCharField(max_length=64)
    token = StrictCharField(max_length=128)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class AccountDeleteInput(StrictSerializer):
    password = StrictCharField(max_length=128, trim_whitespace=False)


class AcceptedOutput(serializers.Serializer):
    detail = serializers.CharField()


@extend_schema_field(
    {
        "type": "string",
        "anyOf": [{"format": "email"}, {"maxLength": 0}],
        "description": "The address given at registration, or an empty string if none was.",
    }
)
class OptionalEmailField(serializers.CharField):
    """An address or "": registration makes it optional, and accounts keep "" for none."""


class MeOutput(serializers.Serializer):
    username = serializers.CharField()
    email = OptionalEmailField()
    date_joined = serializers.DateTimeField()
    bot = serializers.BooleanField(source="is_bot", help_text="A program's account.")
    language = serializers.CharField(
        help_text='The language chosen for pages, mail and pushes ("de", "en"); "" for none '
        "(pages follow the browser's Accept-Language, mail and pushes are in English)."
    )
    invitations_from = serializers.ChoiceField(
        choices=["anyone", "opponents"],
        help_text="Whose challenges and invitations reach you: anyone, or only accounts you "
        "finished a match with (others get 403 invitation_refused).",
    )
    invitations_from_bots = serializers.BooleanField(
        help_text="Whether bot accounts' challenges and invitations reach you."
    )
    screen_reader = serializers.BooleanField(
        help_text="The web client's screen-reader mode on match pages (docs/players.md)."
    )


class ExportMoveOutput(serializers.Serializer):
    step = serializers.IntegerField()
    made_by = serializers.CharField(help_text="player, bot, forced, timeout or forfeit")
    submitted_at = serializers.DateTimeField()
    move = serializers.JSONField(
        allow_null=True, help_text="The move sent, once the match is over; null before."
    )
    receipt = serializers.JSONField(allow_null=True)


class ExportMatchOutput(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    status = serializers.CharField()
    seat = serializers.IntegerField()
    forfeited = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    result = serializers.JSONField(allow_null=True)
    moves = ExportMoveOutput(many=True)


class ExportAccountOutput(serializers.Serializer):
    username = serializers.CharField()
    email = OptionalEmailField()
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True)


class ExportChatOutput(serializers.Serializer):
    match = serializers.UUIDField()
    seq = serializers.IntegerField()
    at = serializers.DateTimeField()
    text = serializers.CharField()


class MeUpdateInput(StrictSerializer):
    email = serializers.EmailField(required=False, allow_blank=True)
    current_password = StrictCharField(
        required=False,
        max_length=128,
        trim_whitespace=False,
        help_text="Needed to change the e-mail address.",
    )
    language = serializers.ChoiceField(
        choices=["", *(code for code, _ in settings.LANGUAGES)],
        required=False,
        help_text='A language for pages, mail and pushes; "" to follow the browser.',
    )
    invitations_from = serializers.ChoiceField(
        choices=["anyone", "opponents"],
        required=False,
        help_text="Whose challenges and invitations reach you: anyone, or only accounts you "
        "finished a match with.",
    )
    invitations_from_bots = StrictBooleanField(
        required=False, help_text="Whether bot accounts' challenges and invitations reach you."
    )
    screen_reader = StrictBooleanField(
        required=False,
        help_text="The web client's screen-reader mode on match pages (docs/players.md).",
    )


class ExportOutput(serializers.Serializer):
    format = serializers.CharField()
    account = ExportAccountOutput()
    matches = ExportMatchOutput(many=True)
    chat_messages = ExportChatOutput(many=True, help_text="Every chat message you wrote.")
    notifications = serializers.JSONField(
        required=False, help_text="Notification preferences, webhooks and push subscriptions."
    )
    ladder_entries = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Your ladder entries, as GET /ladders/{game}/entry shows each.",
    )
