from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A ladder match that finishes is recorded (ratings, strikes) and its game paired
        # again once the change has committed; the tasks register their jobs. A closing
        # account leaves every ladder.
        from accounts.hooks import AccountHooks, account_hook_register
        from games.services.follow_ups import change_committed
        from ladder import tasks  # noqa: F401
        from ladder.accounts import entries_export, entries_leave
        from ladder.follow_up import match_over

        change_committed.connect(match_over, dispatch_uid="ladder.match_over")
        account_hook_register(AccountHooks(close=entries_leave, export=entries_export))
