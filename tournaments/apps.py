from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A match that finishes may end its round: a unit-of-work follow-up hands the check to
        # the task runner once the change has committed; the tasks register their jobs here.
        # Closing an account withdraws its entries and closes the tournaments it organises.
        from accounts.hooks import AccountHooks, account_hook_register
        from tournaments import follow_up, tasks  # noqa: F401
        from tournaments.accounts import player_close, player_export
        from tournaments.notices import notices_send
        from tournaments.services.announce import announcement_listener_register

        announcement_listener_register(notices_send)
        account_hook_register(AccountHooks(close=player_close, export=player_export))
