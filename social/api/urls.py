from django.urls import path

from social.api import views

urlpatterns = [
    path("seeks", views.SeekListApi.as_view(), name="seek-list"),
    path("seeks/<str:seek_id>", views.SeekDetailApi.as_view(), name="seek-detail"),
    path("matches/<str:match_id>/chat", views.ChatApi.as_view(), name="match-chat"),
    path(
        "matches/<str:match_id>/chat/<int:seq>/hide",
        views.ChatHideApi.as_view(),
        name="match-chat-hide",
    ),
    path("challenges", views.ChallengeListApi.as_view(), name="challenge-list"),
    path("challenges/<str:challenge_id>", views.ChallengeDetailApi.as_view(), name="challenge"),
    path(
        "challenges/<str:challenge_id>/accept",
        views.ChallengeAcceptApi.as_view(),
        name="challenge-accept",
    ),
    path(
        "challenges/<str:challenge_id>/decline",
        views.ChallengeDeclineApi.as_view(),
        name="challenge-decline",
    ),
    path(
        "challenges/<str:challenge_id>/cancel",
        views.ChallengeCancelApi.as_view(),
        name="challenge-cancel",
    ),
    path("bulk-pairings", views.BulkPairingApi.as_view(), name="bulk-pairings"),
    path("chat/mutes", views.MutesApi.as_view(), name="chat-mutes"),
]
