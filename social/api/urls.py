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
    path("chat/mutes", views.MutesApi.as_view(), name="chat-mutes"),
]
