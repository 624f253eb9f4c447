from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A match that finishes may end its round: once the change has committed
        # (change_committed) the check goes to the task runner; the tasks register their jobs.
        # Closing an account withdraws its entries and closes the tournaments it organises.
        from accounts.hooks import AccountHooks, account_hook_register
        from games.services.follow_ups import change_committed
        from tournaments import tasks  # noqa: F401
        from tournaments.accounts import player_close, player_export
        from tournaments.follow_up import match_over
        from tournaments.notices import notices_send
        from tournaments.services.announce import announcement_listener_register

        announcement_listener_register(notices_send)
        change_committed.connect(match_over, dispatch_uid="tournaments.match_over")
        account_hook_register(AccountHooks(close=player_close, export=player_export))
