from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """Reports, sanctions, staff notes and the moderation log: what staff did to whom, and why.

    It stands above games, social and tournaments (it acts on their matches, chat and entries)
    and below the web client and the console (docs/moderation.md)."""

    name = "moderation"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = _("Moderation")
