from django.urls import path

from notify import api

urlpatterns = [
    path("me/notifications", api.PreferencesApi.as_view(), name="notify-preferences"),
    path("me/webhooks", api.WebhooksApi.as_view(), name="notify-webhooks"),
    path("me/webhooks/<int:webhook_id>", api.WebhookApi.as_view(), name="notify-webhook"),
    path(
        "me/webhooks/<int:webhook_id>/deliveries",
        api.DeliveriesApi.as_view(),
        name="notify-webhook-deliveries",
    ),
    path("me/push-subscriptions", api.PushSubscriptionsApi.as_view(), name="notify-push"),
    path(
        "me/push-subscriptions/<int:subscription_id>",
        api.PushSubscriptionApi.as_view(),
        name="notify-push-subscription",
    ),
    path("push-key", api.PushKeyApi.as_view(), name="notify-push-key"),
    path("me/deadlines.ics", api.CalendarApi.as_view(), name="notify-calendar"),
    path("me/calendar-key", api.CalendarKeyApi.as_view(), name="notify-calendar-key"),
    path("email/verify", api.EmailVerifyApi.as_view(), name="notify-email-verify"),
    path("notifications/unsubscribe", api.UnsubscribeApi.as_view(), name="notify-unsubscribe"),
]
