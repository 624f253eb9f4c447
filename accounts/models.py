from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """A player or operator. Custom from day one so fields can be added without pain."""

    class Meta:
        db_table = "accounts_user"
