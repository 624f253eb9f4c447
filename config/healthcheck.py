"""The container's health check: ``python -m config.healthcheck`` (no curl in the image).

Exits 0 when ``GET /healthz`` on this machine's web server answers 200, else 1. The port comes
from the web server's own reading of ``WEB_BIND`` (config/web.py) and the ``Host`` header
from ``DJANGO_ALLOWED_HOSTS`` (its first name), so the request passes Django's host validation
like a client's would.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

from config.web import settings_from_environment


def health_url() -> tuple[str, str]:
    """The address to ask and the Host header to send."""
    port = settings_from_environment().port
    hosts = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h.strip()]
    host = next((h.lstrip(".") for h in hosts if h != "*"), "localhost")
    return f"http://127.0.0.1:{port}/healthz", host


def main() -> int:
    url, host = health_url()
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=3) as response:
            return 0 if response.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"unhealthy: {url} (Host: {host}): {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
