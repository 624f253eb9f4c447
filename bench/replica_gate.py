"""What read-your-writes and the lag check cost (games/replica_gate.py), per call.

    .venv/bin/python bench/replica_gate.py [--calls 2000] [--redis redis://127.0.0.1:6379/9]
        [--database postgres://postgres@127.0.0.1:5432/postgres]

- ``wrote``: what a write request adds (one SET sent on the live bus's publisher, no reply
  awaited);
- ``replica_allowed``: what a read that may go to the replica adds (one MGET of the status and
  the reader's last write; the status cached);
- ``measure``: a lag measurement (the primary's flushed position, then the replica's state),
  made once per ``FACEDOWN_REPLICA_CHECK_SECONDS`` by the first read that finds it expired.

Wall time and this process's CPU, in microseconds per call. The replica is the primary's own
cluster under a second alias (the queries are the same; a real replica answers the third over
its own network hop). Uses two keys of its own in the given Redis database, deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(call: Callable[[], object], calls: int) -> tuple[float, float]:
    """(wall µs, CPU µs) per call, after a warm-up."""
    for _ in range(min(100, calls)):
        call()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        call()
    return (
        (time.perf_counter() - wall) / calls * 1e6,
        (time.process_time() - cpu) / calls * 1e6,
    )


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args(argv)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=args.database,
        DATABASE_REPLICA_URL=args.database,
        REDIS_URL=args.redis,
        FACEDOWN_LIVE_BUS="redis",
        DJANGO_SECRET_KEY="bench-replica-gate-" + "x" * 40,
        FACEDOWN_SIGNING_KEY="3d" * 32,
    )
    import django

    django.setup()
    from games import replica_gate
    from live.bus import RedisBus, bus

    shared = bus()
    assert isinstance(shared, RedisBus)
    account = 2**31 - 7  # no real account's
    reader = replica_gate.reading_as(lambda: account)
    results = {
        "wrote": timed(lambda: replica_gate.wrote(account), args.calls),
        "measure": timed(replica_gate.measure, max(1, args.calls // 10)),
    }
    replica_gate.status_note(replica_gate.measure())
    shared.client.pexpire(replica_gate.STATUS_KEY, 600_000)  # cached throughout
    with reader:
        results["replica_allowed"] = timed(replica_gate.replica_allowed, args.calls)
        assert replica_gate.replica_allowed()
    shared.client.delete(replica_gate.STATUS_KEY, replica_gate.wrote_key(account))
    for name, (wall, cpu) in results.items():
        print(f"{name:16} {wall:8.1f} µs wall {cpu:8.1f} µs CPU per call")
    return results


if __name__ == "__main__":
    main()
