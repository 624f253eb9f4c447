"""What the observability middleware costs per request, measured in process with timeit.

    .venv/bin/python bench/observability_overhead.py [--number 20000] [--repeat 7]

A trivial view is called through ``ObservabilityMiddleware`` and without it, on the same
``HttpRequest`` built once (no URL resolution, no database, no network), so the difference is
the middleware alone: taking or making the request id, the context variable, the request
counter and the latency histogram (single-process mode) and the access log line. The access
log is measured written (to /dev/null through the configured handler, text and JSON) and off.
Prints the best of ``--repeat`` runs, in microseconds of this process's CPU time per request
(CPU time, not wall time: on a shared machine the wall clock also counts the time other
processes hold the cores; docs/observability.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import django

    django.setup()
    from django.http import HttpResponse
    from django.test import RequestFactory

    from observability.logs import JsonFormatter, TextFormatter
    from observability.middleware import ObservabilityMiddleware

    def view(request: object) -> HttpResponse:
        return HttpResponse(b"ok")

    request = RequestFactory().get("/api/v1/games")
    wrapped = ObservabilityMiddleware(view)
    sink = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115
    access = logging.getLogger("facedown.access")
    access.handlers, access.propagate = [sink], False

    def best(call: Callable[[], object]) -> float:
        runs = timeit.repeat(
            call,
            number=args.number,
            repeat=args.repeat,
            timer=time.process_time,
        )
        return float(min(runs) / args.number * 1e6)

    bare = best(lambda: view(request))
    rows = []
    for name, formatter, level in [
        ("access log off", None, logging.WARNING),
        ("access log, text", TextFormatter(), logging.INFO),
        ("access log, JSON", JsonFormatter(), logging.INFO),
    ]:
        access.setLevel(level)
        if formatter is not None:
            sink.setFormatter(formatter)
        rows.append((name, best(lambda: wrapped(request)) - bare))
    print(f"trivial view alone: {bare:.2f} us/request")
    for name, extra in rows:
        print(f"middleware, {name}: +{extra:.2f} us/request")


if __name__ == "__main__":
    main()
