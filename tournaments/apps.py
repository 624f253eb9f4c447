from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A match that finishes may end its round: a unit-of-work follow-up hands the check to
        # the task runner once the change has committed; the tasks register their jobs here.
        from tournaments import follow_up, tasks  # noqa: F401
        from tournaments.notices import notices_send
        from tournaments.services.announce import announcement_listener_register

        announcement_listener_register(notices_send)
