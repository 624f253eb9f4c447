from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "observability"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from games.services.follow_ups import change_committed
        from observability import request_id, task_context, worker_metrics
        from observability.metrics import change_count

        # Moves and steps are counted once a change committed, outside its lock.
        change_committed.connect(change_count, dispatch_uid="observability.change_count")
        request_id.record_factory_install()
        task_context.connect()
        worker_metrics.connect()
        if settings.SENTRY_DSN:  # the SDK is imported only when it is used
            from observability.sentry import sentry_init

            sentry_init(
                settings.SENTRY_DSN,
                environment=settings.SENTRY_ENVIRONMENT,
                release=settings.SENTRY_RELEASE,
                traces_sample_rate=settings.SENTRY_TRACES_SAMPLE_RATE,
            )
