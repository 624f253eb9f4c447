from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The production settings checks register themselves (tag "facedown").
        from core import checks  # noqa: F401
        from core.postgresql import health

        health.connect()
