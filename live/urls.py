from django.urls import path

from live import api, views

urlpatterns = [
    path("accounts/stream-ticket", api.StreamTicketApi.as_view(), name="live-stream-ticket"),
    path("accounts/me/stream", views.user_stream, name="live-user-stream"),
    path("matches/<str:match_id>/stream", views.match_stream, name="live-match-stream"),
]
