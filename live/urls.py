from django.urls import path

from live import api, views

urlpatterns = [
    path("accounts/stream-ticket", api.StreamTicketApi.as_view(), name="live-stream-ticket"),
    path("accounts/me/stream", views.UserStreamView.as_view(), name="live-user-stream"),
    path(
        "matches/<str:match_id>/stream", views.MatchStreamView.as_view(), name="live-match-stream"
    ),
    path(
        "tournaments/<str:tournament_id>/stream",
        views.TournamentStreamView.as_view(),
        name="live-tournament-stream",
    ),
]
