"""Account services: registration, tokens, passwords, deletion and export.

Apps above ``accounts`` (the games) take part in closing and exporting an account through
hooks they register at start-up (``accounts.hooks``): ``accounts`` never imports them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from accounts.authentication import forget_cached_tokens
from accounts.hooks import account_hooks
from accounts.lockout import login_failure_record, login_failures_forget, login_lock_check
from accounts.models import User
from accounts.tokens import (
    token_delete,
    token_issue,
    token_listed,
    token_secret_replace,
    tokens_delete_all,
    tokens_named_delete,
)
from accounts.verification_limit import verification_mail_take
from core.errors import InvalidCredentials, ValidationFailed

USERNAME_TAKEN = "This username is taken."
WRONG_PASSWORD = "The password is not correct."
PASSWORD_NEEDED = "Your current password is needed for this change."
BAD_RESET_LINK = "The reset link is invalid or has expired."
#: A closed account's placeholder name is ``deleted~<id>``: "~" is outside every registrable
#: name (``accounts.usernames``), so no account can hold it before the one being closed.
DELETED_PREFIX = "deleted~"
RESET_SUBJECT = "Facedown: reset your password"
LOGIN_TOKEN_NAME = "login"
REGISTRATION_TOKEN_NAME = "registration"
FRESH_TOKEN_NAME = "after a password change"


def password_validate(*, password: str, user: User) -> None:
    """Django's password validators, reported under the field ``password``."""
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ValidationFailed({"password": list(exc.messages)}) from exc


def _token_new(user: User) -> str:
    """Revoke every token of ``user`` and issue a fresh one with every scope."""
    _tokens_delete(user)
    return token_issue(user, name=FRESH_TOKEN_NAME)[1]


def _tokens_delete(user: User) -> None:
    """Inside the revoking transaction: the tokens go, and the revocation is recorded for every
    other web process (``accounts.revocation``), which stops accepting them within a second."""
    tokens_delete_all(user)


def _tokens_revoked() -> None:
    """Called after the revoking transaction: this process forgets its cached tokens at once."""
    forget_cached_tokens()


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    """Register an account (the API's ``register`` and the web sign-up): the caller has
    checked the name with ``accounts.usernames.username_refusal``."""
    password_validate(password=password, user=User(username=username, email=email))
    if email:
        verification_mail_take(email)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
            _, secret = token_issue(user, name=REGISTRATION_TOKEN_NAME)
    except IntegrityError:  # the same name, in another case, registered a moment earlier
        raise ValidationFailed({"username": [USERNAME_TAKEN]}) from None
    if email:
        _email_changed(user)
    return user, secret


def _email_changed(user: User) -> None:
    for hooks in account_hooks():
        hooks.email_changed(user)


def _fresh(user: User) -> User:
    """The account's row as the database has it now, locked until the transaction ends: the
    request's user holds its identity only (``accounts.authentication``)."""
    return User.objects.select_for_update().get(pk=user.pk)


def _password_given(password: str | None, field: str = "current_password") -> str:
    if not password:
        raise ValidationFailed({field: [PASSWORD_NEEDED]})
    return password


def account_update(
    *,
    user: User,
    email: str | None = None,
    current_password: str | None = None,
    language: str | None = None,
    invitations_from: str | None = None,
    invitations_from_bots: bool | None = None,
    screen_reader: bool | None = None,
) -> User:
    """Change the account's own fields (the language; whose challenges and invitations reach
    the player; the screen-reader mode; the e-mail address, which needs the current password);
    a new address goes to every registered hook (which mails it a verification link)."""
    with transaction.atomic():
        fresh = _fresh(user)
        changes = {
            name: value
            for name, value in (
                ("language", language),
                ("invitations_from", invitations_from),
                ("invitations_from_bots", invitations_from_bots),
                ("screen_reader", screen_reader),
            )
            if value is not None and value != getattr(fresh, name)
        }
        if changes:
            for name, value in changes.items():
                setattr(fresh, name, value)
            fresh.save(update_fields=list(changes))
        if email is None or email == fresh.email:
            return fresh
        _password_check(
            user=fresh, password=_password_given(current_password), field="current_password"
        )
        if email:
            verification_mail_take(email)
        fresh.email = email
        fresh.save(update_fields=["email"])
        _email_changed(fresh)
    return fresh


def token_obtain(
    *,
    username: str,
    password: str,
    name: str = LOGIN_TOKEN_NAME,
    scopes: list[str] | None = None,
    expires_in: timedelta | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Log in: a new named token (every scope the account may use, unless ``scopes`` says).
    With ``replace`` the account's tokens of that name are revoked in the same transaction,
    so a program that logs in on every start holds one token, not one per start."""
    login_lock_check(username=username)
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        login_failure_record(username=username)
        raise InvalidCredentials()
    login_failures_forget(username=username)
    if not replace:
        token, secret = token_issue(user, name=name, scopes=scopes, expires_in=expires_in)
        return {"token": secret, **token_listed(token)}
    with transaction.atomic():
        replaced = tokens_named_delete(user, name=name)
        token, secret = token_issue(user, name=name, scopes=scopes, expires_in=expires_in)
    if replaced:
        _tokens_revoked()
    return {"token": secret, **token_listed(token)}


def token_revoke(*, user: User, token_id: int) -> None:
    """Log out: the calling token stops working; the account's other tokens stay."""
    token_delete(user, token_id)
    _tokens_revoked()


def token_rotate(*, user: User, token_id: int | None, current_password: str | None) -> str:
    """A new secret for the calling token, same name, scopes and expiry (needs the current
    password, so a stolen token cannot replace itself); the old secret stops working. From the
    web session: a new token."""
    with transaction.atomic():
        fresh = _fresh(user)
        _password_check(
            user=fresh, password=_password_given(current_password), field="current_password"
        )
        if token_id is None:
            key = token_issue(fresh, name=LOGIN_TOKEN_NAME)[1]
        else:
            key = token_secret_replace(fresh, token_id)
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
    with transaction.atomic():
        fresh = _fresh(user)
        _password_check(user=fresh, password=current_password, field="current_password")
        password_validate(password=new_password, user=fresh)
        fresh.set_password(new_password)
        fresh.save(update_fields=["password"])
        key = _token_new(fresh)
    _tokens_revoked()
    login_failures_forget(username=fresh.username)
    return key


def password_reset_request(*, email: str) -> None:
    """Hand the request to every registered hook, which mails the link later, outside the
    request (``password_reset_mail``), to the active accounts that verified this address: the
    request does the same work whether or not any account has it, so its time tells nothing."""
    for hooks in account_hooks():
        hooks.password_reset_requested(email.strip())


def password_reset_mail(user: User) -> None:
    """Mail ``user`` a reset link (the job behind ``password_reset_request``)."""
    if not user.is_active or not user.has_usable_password() or not user.email:
        return
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    template = settings.FACEDOWN_PASSWORD_RESET_URL or (
        settings.FACEDOWN_PUBLIC_URL.rstrip("/") + "/reset-password?uid={uid}&token={token}"
    )
    link = template.format(uid=uid, token=token)
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
    """Close the account: every registered hook runs first, the highest app's first (the
    tournaments withdraw its entries, social cancels its challenges, the games withdraw its
    proposals and offers, decline its invitations and forfeit its live seats: docs/api.md,
    "Closing an account"), each change in its own transaction, so a failure leaves the
    account to retry; then the user row is
    deactivated and anonymised in place so every match that names it keeps its foreign keys."""
    with transaction.atomic():
        current = _fresh(user)
        _password_check(user=current, password=password, field="password")
    account_close(user=current)


def account_close(*, user: User) -> None:
    """``account_delete`` without the password: every hook, then the row anonymised. The
    player's own deletion checks the password first; a moderator's closing (a sanction,
    moderation/sanctions.py) runs this as it is. The hooks run each in their own
    transaction, so the row is read here unlocked (a lock would need one around them all)."""
    current = User.objects.get(pk=user.pk)
    # From the top of the apps' layers down: what an app started on a lower one's things (a
    # tournament's entry, a challenge) closes before the lower one closes its own (the seats).
    for hooks in reversed(account_hooks()):
        hooks.close(current)
    with transaction.atomic():
        user = _fresh(user)
        old_name = user.username
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
    user = User.objects.get(pk=user.pk)
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
