from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/accounts/", include("accounts.urls")),
    path("api/v1/", include("games.api.urls")),
    path("", include("web.urls")),
]

handler400 = "core.problems.bad_request_view"
handler404 = "core.problems.not_found_view"
handler500 = "core.problems.server_error_view"
