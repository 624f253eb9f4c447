"""``Rating.opponents``: the different opponents each player met in rated matches of a game,
counted from the history (the ``match_finished`` events whose ``ratings`` are not null)."""

from collections import defaultdict

from django.db import migrations, models


def count_opponents(apps, schema_editor):
    MatchEvent = apps.get_model("games", "MatchEvent")
    Rating = apps.get_model("games", "Rating")
    Seat = apps.get_model("games", "Seat")
    rated = MatchEvent.objects.filter(type="match_finished", data__ratings__0__isnull=False)
    seats = (
        Seat.objects.filter(match_id__in=rated.values("match_id"))
        .values_list("match_id", "match__game", "user_id", "bot")
        .order_by("match_id")
    )
    by_match = defaultdict(list)
    for match_id, game, user_id, bot in seats.iterator():
        by_match[(match_id, game)].append(f"u{user_id}" if user_id is not None else f"b{bot}")
    met = defaultdict(set)
    for (_, game), players in by_match.items():
        for player in players:
            if player.startswith("u"):
                met[(int(player[1:]), game)].update(p for p in players if p != player)
    for (user_id, game), opponents in met.items():
        Rating.objects.filter(user_id=user_id, game=game).update(opponents=len(opponents))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_match_rated_chat_db_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="opponents",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.RunPython(count_opponents, migrations.RunPython.noop),
    ]
