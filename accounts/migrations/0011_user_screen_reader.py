from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0010_sanction_ends'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='screen_reader',
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
