from django.apps import AppConfig


class SocialConfig(AppConfig):
    """Finding opponents (seeks) and talking at the table (chat), on top of the games app."""

    name = "social"
    default_auto_field = "django.db.models.BigAutoField"
