from django.db import migrations
from django.db.models import Q


def offsite_backfill(apps, schema_editor):
    # Users who already have a destination outside the site (notify/offsite.py keeps it after).
    User = apps.get_model("accounts", "User")
    settings = apps.get_model("notify", "NotificationSettings").objects
    hooks = apps.get_model("notify", "Webhook").objects
    pushes = apps.get_model("notify", "PushSubscription").objects
    User.objects.filter(
        Q(pk__in=settings.exclude(verified_email="").values("user_id"))
        | Q(pk__in=hooks.filter(active=True).values("user_id"))
        | Q(pk__in=pushes.values("user_id"))
    ).update(offsite_channels=True)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_user_offsite_channels"),
        ("notify", "0002_notificationsettings_pushsubscription_webhook_and_more"),
    ]

    operations = [
        migrations.RunPython(offsite_backfill, migrations.RunPython.noop),
    ]
