"""One sweep in a process of its own, as a worker's beat-driven sweep runs it:
``python -m tests.faults.sweeper NOW`` prints its database backend's pid (so a test can tell
which process waits where), then sweeps with ``now`` = NOW and prints how many steps changed."""

from __future__ import annotations

import sys
from datetime import datetime

import django


def main() -> None:
    django.setup()
    from django.db import connection

    from games.services.deadlines import overdue_sweep

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    print(f"backend {pid}", flush=True)
    print(f"changed {overdue_sweep(now=datetime.fromisoformat(sys.argv[1]))}", flush=True)


if __name__ == "__main__":
    main()
