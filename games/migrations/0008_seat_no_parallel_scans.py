"""Seats are read by index a few rows at a time; a parallel scan of them never pays.

With ~1M seat rows the planner chose a parallel bitmap scan for the stalled-bots sweep (200
rows, 1.3 ms of work) and spent ~25 ms starting its workers on a busy 2-core machine
(docs/benchmarks-history.md, "Queries at 200k matches"). ``parallel_workers = 0`` keeps every plan over this table
serial. PostgreSQL only: SQLite has no such setting.
"""

from django.db import migrations


def _postgresql_only(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_merge_chat_ratings_and_hot_query_indexes"),
    ]

    operations = [
        migrations.RunPython(
            _postgresql_only("ALTER TABLE games_seat SET (parallel_workers = 0)"),
            _postgresql_only("ALTER TABLE games_seat RESET (parallel_workers)"),
        ),
    ]
