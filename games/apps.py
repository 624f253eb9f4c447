from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The task runners and their jobs register with games.dispatch.
        from games import embedded, tasks  # noqa: F401
