"""The sign-up and reset forms: the same rules and services as the API's ``register`` and
``password-reset/confirm``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from accounts.lockout import (
    LoginLockedOut,
    login_failure_record,
    login_failures_forget,
    login_lock_check,
)
from accounts.models import User
from accounts.services import password_reset_confirm, user_register
from accounts.usernames import username_normalise, username_refusal
from core.errors import ValidationFailed
from core.text import said


class SignUpForm(forms.Form):
    username = forms.CharField(
        label=gettext_lazy("Username"),
        max_length=60,
        strip=False,
        help_text=gettext_lazy("3 to 30 of A-Z a-z 0-9 . _ - (no accents or non-Latin letters)"),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        label=gettext_lazy("E-mail address (optional)"),
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=gettext_lazy("Password"),
        max_length=128,
        strip=False,
        help_text=gettext_lazy("At least 10 characters, not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=gettext_lazy("Password again"),
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_username(self) -> str:
        """The API's rules (``accounts.usernames``): pattern, reserved names, taken names
        and look-alikes, after the same normalisation."""
        username = username_normalise(self.cleaned_data["username"])
        refusal = username_refusal(username)
        if refusal is not None:
            raise ValidationError(gettext(refusal))
        return username

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        first, second = data.get("password1"), data.get("password2")
        if first and second and first != second:
            self.add_error("password2", gettext("The two passwords differ."))
        elif first and "username" in data:
            candidate = User(username=data["username"], email=data.get("email", ""))
            try:
                password_validation.validate_password(first, candidate)
            except ValidationError as exc:
                self.add_error("password1", exc)
        return data

    def save(self) -> User | None:
        """Create the user exactly as the API's registration does (with a token); None, with
        the service's refusal on the form, if it refused."""
        try:
            user, _token = user_register(
                username=self.cleaned_data["username"],
                password=self.cleaned_data["password1"],
                email=self.cleaned_data.get("email") or "",
            )
        except ValidationFailed as refused:
            _add_errors(self, refused, {"password": "password1"})
            return None
        return user


def _add_errors(form: forms.Form, refused: ValidationFailed, fields: dict[str, str]) -> None:
    errors: dict[str, list[str]] = refused.extra.get("errors", {})
    for name, messages in errors.items():
        field = fields.get(name, name)
        form.add_error(field if field in form.fields else None, [said(m) for m in messages])


class PasswordResetForm(forms.Form):
    """The page a reset mail links to: the link's ``uid`` and ``token``, a new password."""

    uid = forms.CharField(max_length=64, widget=forms.HiddenInput)
    token = forms.CharField(max_length=128, widget=forms.HiddenInput)
    password1 = forms.CharField(
        label=gettext_lazy("New password"),
        max_length=128,
        strip=False,
        help_text=gettext_lazy("At least 10 characters, not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password", "autofocus": True}),
    )
    password2 = forms.CharField(
        label=gettext_lazy("New password again"),
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "uid" in self.errors or "token" in self.errors:  # hidden: said on the form instead
            self.add_error(None, gettext("Open this page from the link in your reset mail."))
        first, second = data.get("password1"), data.get("password2")
        if first and second and first != second:
            self.add_error("password2", gettext("The two passwords differ."))
        return data

    def save(self) -> bool:
        """Set the password through the API's service; False, with its refusal on the
        form (a used or expired link, a weak password), if it refused."""
        try:
            password_reset_confirm(
                uid=self.cleaned_data["uid"],
                token=self.cleaned_data["token"],
                new_password=self.cleaned_data["password1"],
            )
        except ValidationFailed as refused:
            _add_errors(self, refused, {"password": "password1", "token": "__all__"})
            return False
        return True


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
                gettext("Too many failed logins for this name: try again in %(wait)s seconds.")
                % {"wait": wait},
                code="locked",
            ) from None
        try:
            cleaned = super().clean()
        except ValidationError:
            login_failure_record(username=username)
            raise
        login_failures_forget(username=username)
        return cleaned
