from django.urls import path

from accounts import api

urlpatterns = [
    path("register", api.RegisterApi.as_view(), name="accounts-register"),
    path("token", api.TokenApi.as_view(), name="accounts-token"),
    path("me", api.MeApi.as_view(), name="accounts-me"),
]
