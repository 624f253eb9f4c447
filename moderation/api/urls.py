from django.urls import path

from moderation.api import views

urlpatterns = [
    path("reports", views.ReportApi.as_view(), name="report-create"),
    path("sanctions", views.SanctionListApi.as_view(), name="sanction-list"),
    path(
        "sanctions/<str:sanction_id>/appeal",
        views.SanctionAppealApi.as_view(),
        name="sanction-appeal",
    ),
]
