"""The sign-up form: the same checks as ``POST /api/v1/accounts/register``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from accounts.lockout import (
    LoginLockedOut,
    login_failure_record,
    login_failures_forget,
    login_lock_check,
)
from accounts.models import User
from accounts.services import user_register

USERNAME_PATTERN = r"^[A-Za-z0-9_.-]{3,30}$"


class SignUpForm(forms.Form):
    username = forms.RegexField(
        USERNAME_PATTERN,
        max_length=30,
        help_text="3 to 30 of A-Z a-z 0-9 . _ - (no accents or non-Latin letters)",
        error_messages={
            "invalid": "Use 3 to 30 of A-Z, a-z, 0-9 and . _ - only "
            f"(the pattern {USERNAME_PATTERN}): accented and non-Latin letters are refused."
        },
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        required=False, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password1 = forms.CharField(
        label="Password",
        max_length=128,
        strip=False,
        help_text="At least 8 characters, not a common password.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label="Password again",
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise ValidationError("This username is taken.")
        return username

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        first, second = data.get("password1"), data.get("password2")
        if first and second and first != second:
            self.add_error("password2", "The two passwords differ.")
        elif first and "username" in data:
            candidate = User(username=data["username"], email=data.get("email", ""))
            try:
                password_validation.validate_password(first, candidate)
            except ValidationError as exc:
                self.add_error("password1", exc)
        return data

    def save(self) -> User:
        """Create the user exactly as the API's registration does (with a token)."""
        user, _token = user_register(
            username=self.cleaned_data["username"],
            password=self.cleaned_data["password1"],
            email=self.cleaned_data.get("email") or "",
        )
        return user


class LockedLoginForm(AuthenticationForm):
    """The browser's login, under the same per-account lockout as ``POST /accounts/token``:
    a locked name is refused before its password is checked, and every failure counts."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        try:
            login_lock_check(username=username)
        except LoginLockedOut as locked:
            wait = getattr(locked, "wait", None) or 1
            raise ValidationError(
                f"Too many failed logins for this name: try again in {wait} seconds.",
                code="locked",
            ) from None
        try:
            cleaned = super().clean()
        except ValidationError:
            login_failure_record(username=username)
            raise
        login_failures_forget(username=username)
        return cleaned
