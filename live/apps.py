from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from accounts.revocation import revocation_listener_register
        from core.account_feed import feed_deliverer_register
        from core.commit_hooks import commit_hooks_around
        from games.replica_gate import replica_store_register
        from games.services.follow_ups import change_committed
        from live.bus import publications_batched
        from live.notifications import feed_deliver, stream_deliver
        from live.publish import change_publish, chat_publish
        from live.replica_store import BusStore
        from live.revocations import revocations_publish, session_logged_out
        from live.tournaments import standings_publish
        from notify.dispatch import register_channel
        from social.chat import chat_listener_register
        from tournaments.services.announce import announcement_listener_register

        change_committed.connect(change_publish, dispatch_uid="live.change_publish")
        commit_hooks_around(publications_batched)
        register_channel("stream", stream_deliver)
        feed_deliverer_register(feed_deliver)
        chat_listener_register(chat_publish)
        revocation_listener_register(revocations_publish)
        announcement_listener_register(standings_publish)
        replica_store_register(BusStore())
        user_logged_out.connect(session_logged_out, dispatch_uid="live.session_logged_out")
