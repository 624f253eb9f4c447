from pathlib import Path

import drf_spectacular_sidecar
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import include, path
from django.views.static import serve
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from games.api.vacation import VacationApi
from web.views import favicon

# Swagger UI's and ReDoc's files, from the installed drf-spectacular-sidecar package.
SIDECAR_STATIC = Path(drf_spectacular_sidecar.__file__).parent / "static"


def sidecar_asset(request: HttpRequest, path: str) -> HttpResponseBase:
    """The docs' JavaScript and CSS, served by Django itself in every run mode (like the web
    client's assets: no collectstatic, no DEBUG), so /api/docs/ and /api/redoc/ work offline."""
    response = serve(request, f"drf_spectacular_sidecar/{path}", document_root=str(SIDECAR_STATIC))
    response["Cache-Control"] = "no-cache"
    return response


# Django tries the patterns in order, so the API's match routes (every move and read) come
# first: a move is then resolved in a few regex matches instead of a walk past the admin, the
# docs and the other apps' routes. No two patterns match the same path, so order is speed only.
urlpatterns = [
    path("api/v1/", include("games.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="docs/redoc.html"),
        name="redoc",
    ),
    path(
        f"{settings.STATIC_URL.lstrip('/')}drf_spectacular_sidecar/<path:path>",
        sidecar_asset,
        name="sidecar-asset",
    ),
    path("favicon.ico", favicon, name="favicon"),
    path("api/v1/", include("live.urls")),
    path("api/v1/accounts/me/vacation", VacationApi.as_view(), name="accounts-vacation"),
    path("api/v1/accounts/", include("accounts.urls")),
    path("api/v1/accounts/", include("notify.urls")),
    path("api/v1/", include("social.api.urls")),
    path("api/v1/", include("tournaments.api.urls")),
    path("api/v1/", include("ladder.api.urls")),
    path("api/v1/", include("moderation.api.urls")),
    path("", include("web.urls")),
]

handler400 = "core.problems.bad_request_view"
handler404 = "core.problems.not_found_view"
handler500 = "core.problems.server_error_view"
