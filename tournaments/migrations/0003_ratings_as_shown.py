"""Entry conditions in the rating players read: ``min_rating`` and ``max_rating`` were openskill
ordinals (0 a newcomer); they become shown ratings (1500 a newcomer), whole numbers."""

from typing import Any

from django.db import migrations, models

from games.services.rating_scale import from_ordinal, to_ordinal


def _convert(apps: Any, convert: Any) -> None:
    Tournament = apps.get_model("tournaments", "Tournament")
    for field in ("min_rating", "max_rating"):
        for pk, value in Tournament.objects.filter(**{f"{field}__isnull": False}).values_list(
            "pk", field
        ):
            Tournament.objects.filter(pk=pk).update(**{field: convert(value)})


def ordinals_to_shown(apps: Any, schema_editor: Any) -> None:
    _convert(apps, from_ordinal)


def shown_to_ordinals(apps: Any, schema_editor: Any) -> None:
    _convert(apps, to_ordinal)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_words"),
    ]

    operations = [
        migrations.RunPython(ordinals_to_shown, shown_to_ordinals),
        migrations.AlterField(
            model_name="tournament",
            name="max_rating",
            field=models.IntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="min_rating",
            field=models.IntegerField(blank=True, null=True),
        ),
    ]
