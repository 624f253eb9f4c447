from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    """A player or operator. Custom from day one so fields can be added without pain."""

    class Meta:
        db_table = "accounts_user"
        constraints = [
            # Names are unique regardless of case (accounts/usernames.py), even under a race.
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]
