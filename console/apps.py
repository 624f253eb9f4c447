"""The console replaces the stock admin site (``AdminConfig.default_site``) so every app's
``admin.site`` and the ``admin:`` URL names stay as they were."""

from __future__ import annotations

from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig
from django.utils.translation import gettext_lazy as _


class ConsoleAdminConfig(AdminConfig):
    default_site = "console.site.ConsoleSite"


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = _("Console")
