from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The task runners and their jobs register with games.dispatch.
        # Closing or exporting an account withdraws from and exports its matches.
        from accounts.hooks import AccountHooks, account_hook_register
        from games import checks, embedded, tasks  # noqa: F401
        from games.api.idempotent import commit_note

        # Their work inside a change's transaction (in_transaction_register).
        from games.services import conditional, series  # noqa: F401
        from games.services.follow_ups import change_committed
        from games.services.players import (
            player_export,
            player_has_played,
            player_renamed,
            player_withdraw,
        )

        # The idempotency layer notes which matches a keyed request changed, once committed.
        change_committed.connect(commit_note, dispatch_uid="games.api.idempotent")
        account_hook_register(
            AccountHooks(
                close=player_withdraw,
                export=player_export,
                renamed=player_renamed,
                has_played=player_has_played,
            )
        )
