"""The console's admin site: Django's, with the operator's home page as its index."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from console.figures import figures, running_tournaments
from console.texts import duration_words


class ConsoleSite(admin.AdminSite):
    site_header = _("Facedown console")
    site_title = _("Facedown console")
    index_title = _("What needs you now")
    index_template = "console/home.html"

    def index(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> TemplateResponse:
        tournaments = [(t, duration_words(t.round_limit_seconds)) for t in running_tournaments()]
        context = {
            **(extra_context or {}),
            "figures": figures(reports=request.user.has_perm("moderation.view_report")),
            "tournaments": tournaments,
        }
        return super().index(request, extra_context=context)
