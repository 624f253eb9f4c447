"""The receipt-signing key must be there, and shared, before a production process starts.

A system check tagged ``facedown`` (``core/checks.py`` has the others): it loads the key as
signing will, so a missing or malformed key fails ``manage.py check``, gunicorn and the worker
at start instead of the first move.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error, register
from django.core.exceptions import ImproperlyConfigured

from games.signing import public_keys


@register("facedown")
def signing_key_configured(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    try:
        public_keys()
    except ImproperlyConfigured as exc:
        return [
            Error(
                str(exc),
                hint="Generate one with `python manage.py generate_signing_key` and give the "
                'same key to every machine (docs/deployment.md, "Keys").',
                id="facedown.E005",
            )
        ]
    return []
