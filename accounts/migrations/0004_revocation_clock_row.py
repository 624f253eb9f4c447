from django.db import migrations


def clock_create(apps, schema_editor):
    # The one counter row revocations are numbered under (accounts/revocation.py).
    apps.get_model("accounts", "RevocationClock").objects.get_or_create(pk=1, defaults={"seq": 0})


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_token_revocations"),
    ]

    operations = [
        migrations.RunPython(clock_create, migrations.RunPython.noop),
    ]
