from django.apps import AppConfig


class SocialConfig(AppConfig):
    """Finding opponents (seeks) and talking at the table (chat), on top of the games app."""

    name = "social"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts.hooks import AccountHooks, account_hook_register
        from social.accounts import player_close, player_export

        account_hook_register(AccountHooks(close=player_close, export=player_export))
