from django.contrib.auth.views import LogoutView
from django.urls import path

from web import views

urlpatterns = [
    path("", views.lobby, name="web-lobby"),
    path("login", views.WebLoginView.as_view(), name="web-login"),
    path("logout", LogoutView.as_view(next_page="/login"), name="web-logout"),
    path("signup", views.signup, name="web-signup"),
    path("language", views.set_language, name="web-language"),
    path("jsi18n", views.javascript_catalogue, name="web-jsi18n"),
    path("reset-password", views.reset_password, name="web-reset-password"),
    path("matches/<str:match_id>", views.match_page, name="web-match"),
    path("players/<str:username>", views.profile_page, name="web-profile"),
    path("leaderboard", views.leaderboard_page, name="web-leaderboard"),
    path("ladders/<str:game>", views.ladder_page, name="web-ladder"),
    path("tokens", views.tokens_page, name="web-tokens"),
    path("series/<str:series_id>", views.series_page, name="web-series"),
    path("tournaments", views.tournaments_page, name="web-tournaments"),
    path("tournaments/<str:tournament_id>", views.tournament_page, name="web-tournament"),
    path("assets/<path:path>", views.asset, name="web-asset"),
    path("sw.js", views.service_worker, name="web-service-worker"),
]
