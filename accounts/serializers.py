from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import User
from core.serializers import StrictCharField, StrictRegexField, StrictSerializer


class RegisterInput(StrictSerializer):
    username = StrictRegexField(r"^[A-Za-z0-9_.-]{3,30}\Z", max_length=30)
    password = StrictCharField(write_only=True, max_length=128)
    email = serializers.EmailField(required=False, allow_blank=True)

    def validate_username(self, value: str) -> str:
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("This username is taken.")
        return value

    def validate(self, attrs: dict) -> dict:
        candidate = User(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from exc
        return attrs


class RegisterOutput(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


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
