from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core.commit_hooks import commit_hooks_around
        from games.services.unit_of_work import follow_up_register
        from live.bus import publications_batched
        from live.notifications import stream_deliver
        from live.publish import change_publish, chat_publish
        from notify.dispatch import register_channel
        from social.chat import chat_listener_register

        follow_up_register(change_publish)
        commit_hooks_around(publications_batched)
        register_channel("stream", stream_deliver)
        chat_listener_register(chat_publish)
