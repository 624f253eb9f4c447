"""Client CPU of one throttle count: the script command ``core.cache`` sends per request.

    .venv/bin/python bench/throttle_command.py [--calls 5000] [--redis redis://127.0.0.1:6379/9]

Prints microseconds of this process's CPU per call and which reply parser redis-py uses
(hiredis when it is installed). Uses three keys of its own, deleted at the end.
"""

from __future__ import annotations

import argparse
import time

import redis
from redis.utils import HIREDIS_AVAILABLE

from core.cache import _COUNT_LUA


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/9")
    args = parser.parse_args()
    client = redis.Redis.from_url(args.redis)
    script = client.register_script(_COUNT_LUA)
    keys = [f"bench-throttle-{n}" for n in range(3)]
    for _ in range(500):
        script(keys=keys, args=[60, 60, 60])
    start = time.process_time()
    for _ in range(args.calls):
        script(keys=keys, args=[60, 60, 60])
    micros = (time.process_time() - start) / args.calls * 1e6
    parser_name = "hiredis" if HIREDIS_AVAILABLE else "redis-py's own parser"
    print(f"{micros:.0f} µs per count ({parser_name}, {args.calls} calls)")
    client.delete(*keys)


if __name__ == "__main__":
    main()
