from django.urls import path

from accounts import api

urlpatterns = [
    path("register", api.RegisterApi.as_view(), name="accounts-register"),
    path("token", api.TokenApi.as_view(), name="accounts-token"),
    path("token/rotate", api.TokenRotateApi.as_view(), name="accounts-token-rotate"),
    path("me/tokens", api.TokenListApi.as_view(), name="accounts-tokens"),
    path("me/tokens/<int:token_id>", api.TokenDetailApi.as_view(), name="accounts-token-detail"),
    path("me/bot", api.BotApi.as_view(), name="accounts-bot"),
    path("logout", api.LogoutApi.as_view(), name="accounts-logout"),
    path("password", api.PasswordChangeApi.as_view(), name="accounts-password"),
    path("password-reset", api.PasswordResetApi.as_view(), name="accounts-password-reset"),
    path(
        "password-reset/confirm",
        api.PasswordResetConfirmApi.as_view(),
        name="accounts-password-reset-confirm",
    ),
    path("me", api.MeApi.as_view(), name="accounts-me"),
    path("me/export", api.ExportApi.as_view(), name="accounts-export"),
]
