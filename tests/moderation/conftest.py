from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import User


@pytest.fixture(autouse=True)
def _no_runner(settings: Any) -> None:
    settings.FACEDOWN_TASK_RUNNER = "off"


def staff_member(name: str, group: str | None) -> User:
    """A staff account in one of the roles' groups (made by moderation's data migration)."""
    user = User.objects.create_user(name, password="correct-horse-battery", is_staff=True)
    if group is not None:
        user.groups.add(Group.objects.get(name=group))
    return User.objects.get(pk=user.pk)  # permissions are cached per instance


@pytest.fixture
def moderator(db: None) -> User:
    return staff_member("mod", "moderators")


@pytest.fixture
def operator_staff(db: None) -> User:
    return staff_member("ops", "operators")


def console_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
