from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "notify"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The unit of work's follow-up computes notifications after every committed change;
        # the tasks register their jobs with the task runners.
        from notify import generate, tasks  # noqa: F401
