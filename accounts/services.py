"""Account services: registration, tokens, passwords, deletion and export.

Apps above ``accounts`` (the games) take part in closing and exporting an account through
hooks they register at start-up (``accounts.hooks``): ``accounts`` never imports them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from rest_framework.authtoken.models import Token

from accounts.authentication import forget_cached_tokens
from accounts.hooks import account_hooks
from accounts.lockout import login_failure_record, login_failures_forget, login_lock_check
from accounts.models import User
from accounts.revocation import revocation_record
from core.errors import InvalidCredentials, ValidationFailed

USERNAME_TAKEN = "This username is taken."
WRONG_PASSWORD = "The password is not correct."
BAD_RESET_LINK = "The reset link is invalid or has expired."
DELETED_PREFIX = "deleted-"
RESET_SUBJECT = "Facedown: reset your password"


def password_validate(*, password: str, user: User) -> None:
    """Django's password validators, reported under the field ``password``."""
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ValidationFailed({"password": list(exc.messages)}) from exc


def _token_new(user: User) -> str:
    """Revoke every token of ``user`` and issue a fresh one."""
    _tokens_delete(user)
    token = Token.objects.create(user=user)
    return str(token.key)


def _tokens_delete(user: User) -> None:
    """Inside the revoking transaction: the tokens go, and the revocation is recorded for every
    other web process (``accounts.revocation``), which stops accepting them within a second."""
    Token.objects.filter(user=user).delete()
    revocation_record([user.pk])


def _tokens_revoked() -> None:
    """Called after the revoking transaction: this process forgets its cached tokens at once."""
    forget_cached_tokens()


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    password_validate(password=password, user=User(username=username, email=email))
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
            token = Token.objects.create(user=user)
    except IntegrityError:  # the same name, in another case, registered a moment earlier
        raise ValidationFailed({"username": [USERNAME_TAKEN]}) from None
    return user, token.key


def token_obtain(*, username: str, password: str) -> str:
    login_lock_check(username=username)
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        login_failure_record(username=username)
        raise InvalidCredentials()
    login_failures_forget(username=username)
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def token_revoke(*, user: User) -> None:
    """Log out: the token stops working (every client sharing it must log in again)."""
    with transaction.atomic():
        _tokens_delete(user)
    _tokens_revoked()


def token_rotate(*, user: User) -> str:
    with transaction.atomic():
        key = _token_new(user)
    _tokens_revoked()
    return key


def _password_check(*, user: User, password: str, field: str) -> None:
    """The account's own password, counted by the login lockout like a login."""
    login_lock_check(username=user.username)
    if not user.check_password(password):
        login_failure_record(username=user.username)
        raise ValidationFailed({field: [WRONG_PASSWORD]})


def password_change(*, user: User, current_password: str, new_password: str) -> str:
    """Set a new password; every token is revoked and a fresh one returned."""
    _password_check(user=user, password=current_password, field="current_password")
    password_validate(password=new_password, user=user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        key = _token_new(user)
    _tokens_revoked()
    login_failures_forget(username=user.username)
    return key


def password_reset_request(*, email: str) -> None:
    """Mail a reset link to every active account with this address; silent when none has."""
    users = User.objects.filter(email__iexact=email.strip(), is_active=True)
    for user in users:
        if not user.has_usable_password():
            continue
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        link = settings.FACEDOWN_PASSWORD_RESET_URL.format(uid=uid, token=token)
        minutes = settings.PASSWORD_RESET_TIMEOUT // 60
        send_mail(
            RESET_SUBJECT,
            f"Someone asked to reset the password of the Facedown account {user.username}.\n\n"
            f"To choose a new one, open this link within {minutes} minutes:\n{link}\n\n"
            f"or POST uid={uid} and token={token} with your new password to "
            "/api/v1/accounts/password-reset/confirm.\n\n"
            "If you did not ask for this, ignore this message; your password stays as it is.",
            None,
            [user.email],
        )


def password_reset_confirm(*, uid: str, token: str, new_password: str) -> str:
    """Set a new password from a mailed link; every token is revoked and a fresh one returned."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uid)))
        user = User.objects.get(pk=pk, is_active=True)
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        raise ValidationFailed({"token": [BAD_RESET_LINK]}) from None
    if not default_token_generator.check_token(user, token):
        raise ValidationFailed({"token": [BAD_RESET_LINK]})
    password_validate(password=new_password, user=user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        key = _token_new(user)
    _tokens_revoked()
    login_failures_forget(username=user.username)
    return key


def account_delete(*, user: User, password: str) -> None:
    """Close the account: every registered hook runs first (the games forfeit its live seats,
    each in its own transaction, so a failure leaves the account to retry), then the user row is
    deactivated and anonymised in place so every match that names it keeps its foreign keys."""
    _password_check(user=user, password=password, field="password")
    for hooks in account_hooks():
        hooks.close(user)
    old_name = user.username
    with transaction.atomic():
        user.username = f"{DELETED_PREFIX}{user.pk}"
        user.email = user.first_name = user.last_name = ""
        user.is_active = user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        _tokens_delete(user)
    _tokens_revoked()
    login_failures_forget(username=old_name)
    for hooks in account_hooks():
        hooks.renamed(user, old_name)


def account_export(*, user: User) -> dict[str, Any]:
    """The account's own data as JSON: the account, then each registered section."""
    data: dict[str, Any] = {
        "format": "facedown-account-export-v1",
        "account": {
            "username": user.username,
            "email": user.email,
            "date_joined": user.date_joined.isoformat(),
            "last_login": user.last_login.isoformat() if user.last_login else None,
        },
    }
    for hooks in account_hooks():
        data.update(hooks.export(user))
    return data
