"""A seek's ``rating_range`` bounds the rating players read (1500 a newcomer), no longer
openskill's ordinal (0 a newcomer): stored bounds are converted, kept within 0 to 10000."""

from typing import Any

from django.db import migrations

from games.services.rating_scale import from_ordinal, to_ordinal

HIGHEST = 10_000


def _convert(apps: Any, convert: Any) -> None:
    Seek = apps.get_model("social", "Seek")
    for seek in Seek.objects.exclude(rating_range=None).only("pk", "rating_range"):
        if not isinstance(seek.rating_range, dict):
            continue
        bounds = {k: min(HIGHEST, max(0, round(convert(v)))) for k, v in seek.rating_range.items()}
        Seek.objects.filter(pk=seek.pk).update(rating_range=bounds)


def ordinals_to_shown(apps: Any, schema_editor: Any) -> None:
    _convert(apps, from_ordinal)


def shown_to_ordinals(apps: Any, schema_editor: Any) -> None:
    _convert(apps, to_ordinal)


class Migration(migrations.Migration):
    dependencies = [
        ("social", "0003_challenge_allow_bots"),
    ]

    operations = [migrations.RunPython(ordinals_to_shown, shown_to_ordinals)]
