from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import User
from accounts.usernames import (
    USERNAME_PATTERN,
    username_normalise,
    username_skeleton,
    username_skeleton_expression,
)
from core.serializers import StrictCharField, StrictSerializer

TAKEN = "This username is taken."
LOOKS_ALIKE = "This username looks too much like an existing one."
BAD_USERNAME = (
    f"Must match the pattern {USERNAME_PATTERN.pattern} after Unicode NFKC normalisation: "
    "3 to 30 characters of A-Z, a-z, 0-9, '_', '.' and '-' (ASCII only, so accented and "
    "non-Latin letters such as 'émile' or '李雷' are refused)."
)
RESERVED = "Usernames starting with 'deleted-' are reserved."


class RegisterInput(StrictSerializer):
    username = StrictCharField(max_length=60, trim_whitespace=False)
    password = StrictCharField(write_only=True, max_length=128, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True)

    def validate_username(self, value: str) -> str:
        name = username_normalise(value)
        if not USERNAME_PATTERN.fullmatch(name):
            raise serializers.ValidationError(BAD_USERNAME)
        if name.casefold().startswith("deleted-"):
            raise serializers.ValidationError(RESERVED)
        if User.objects.filter(username__iexact=name).exists():
            raise serializers.ValidationError(TAKEN)
        lookalike = User.objects.annotate(skeleton=username_skeleton_expression()).filter(
            skeleton=username_skeleton(name)
        )
        if lookalike.exists():
            raise serializers.ValidationError(LOOKS_ALIKE)
        return name


class RegisterOutput(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False)


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


class ExportOutput(serializers.Serializer):
    format = serializers.CharField()
    account = ExportAccountOutput()
    matches = ExportMatchOutput(many=True)
    chat_messages = ExportChatOutput(many=True, help_text="Every chat message you wrote.")
