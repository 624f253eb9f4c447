from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "notify"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Notifications are computed and sent after every committed change (change_committed);
        # the tasks register their jobs with the task runners; the channels register here.
        from accounts.hooks import AccountHooks, account_hook_register
        from games.services.follow_ups import change_committed
        from notify import tasks  # noqa: F401
        from notify.account import (
            notify_account_close,
            notify_email_changed,
            notify_export,
            notify_password_reset_requested,
        )
        from notify.dispatch import register_channel
        from notify.generate import notifications_follow_up
        from notify.offsite import offsite_signals_connect
        from notify.outbound import outbound_channel

        # E-mail, webhooks and Web Push: one job per batch (notify/outbound.py).
        register_channel("outbound", outbound_channel)
        offsite_signals_connect()
        change_committed.connect(notifications_follow_up, dispatch_uid="notify.change")
        account_hook_register(
            AccountHooks(
                close=notify_account_close,
                export=notify_export,
                email_changed=notify_email_changed,
                password_reset_requested=notify_password_reset_requested,
            )
        )
