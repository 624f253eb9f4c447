"""Every API response a test receives is checked against the published OpenAPI schema.

The schema is generated once per session by drf-spectacular's ``SchemaGenerator`` (what
``/api/schema/`` serves). A response on a documented path must have a documented status, a
documented content type, and a body valid for that status's schema, formats included.
Objects are checked closed: a field the schema does not name is drift too, even though the
published schema leaves objects open for clients. Paths the schema does not know (admin, web
pages, static files) are not checked.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.generators import SchemaGenerator
from jsonschema.exceptions import ValidationError, best_match
from openapi_schema_validator import OAS30ReadValidator, oas30_format_checker

JSON_MEDIA = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
_COMBINERS = ("allOf", "oneOf", "anyOf")


class ResponseDrift(AssertionError):
    """A response the schema does not describe."""


def _closed(node: Any) -> Any:
    """A copy of ``node`` in which every object that lists its properties allows no others."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {key: _closed(value) for key, value in node.items()}
    if (
        "properties" in node
        and "additionalProperties" not in node
        and not any(key in node for key in _COMBINERS)
    ):
        closed["additionalProperties"] = False
    return closed


def _path_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}/]+\})", template)
    return re.compile(
        "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts) + "$"
    )


@dataclass
class SchemaGuard:
    spec: dict[str, Any]
    _paths: list[tuple[re.Pattern[str], str]] = field(init=False)
    _components: dict[str, Any] = field(init=False)
    _validators: dict[tuple[str, str, str, str], Any] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        # Literal paths before templated ones, where both could match.
        templates = sorted(self.spec["paths"], key=lambda t: (t.count("{"), t))
        self._paths = [(_path_pattern(template), template) for template in templates]
        self._components = _closed(self.spec.get("components", {}))

    def template(self, path: str) -> str | None:
        return next((tpl for pattern, tpl in self._paths if pattern.match(path)), None)

    def check(self, method: str, path: str, response: HttpResponseBase) -> None:
        """Raise ``ResponseDrift`` if the response strays from what the schema documents."""
        template = self.template(path)
        if template is None:
            return
        method = method.lower()
        if method == "options" and not getattr(response, "content", b""):
            return  # a CORS preflight, answered by the CORS middleware before any view
        status = response.status_code
        where = f"{method.upper()} {template} answered {status}"
        operations = self.spec["paths"][template]
        operation = operations.get("get" if method == "head" else method)
        if operation is None:
            if status != 405:
                raise ResponseDrift(f"{where}: the method is not documented for this path")
            documented: dict[str, Any] = {"content": _PROBLEM_CONTENT}
        else:
            responses = operation["responses"]
            documented = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
            if documented is None:
                listed = ", ".join(responses)
                raise ResponseDrift(f"{where}: status not documented ({listed})")
        body = b"" if method == "head" or response.streaming else response.content
        content = documented.get("content") or {}
        if not content:
            if body:
                raise ResponseDrift(f"{where}: a body where the schema documents none")
            return
        media = (response.get("Content-Type") or "").split(";")[0].strip()
        if media not in content:
            listed = ", ".join(content)
            raise ResponseDrift(f"{where}: content type {media!r} not documented ({listed})")
        schema = content[media].get("schema")
        if schema is None or not JSON_MEDIA.match(media):
            return
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise ResponseDrift(f"{where}: the body is not JSON ({exc})") from None
        validator = self._validator((template, method, str(status), media), schema)
        error = best_match(validator.iter_errors(data))
        if error is not None:
            raise ResponseDrift(f"{where}: {_describe(error)}")

    def _validator(self, key: tuple[str, str, str, str], schema: Any) -> Any:
        validator = self._validators.get(key)
        if validator is None:
            # The read validator also refuses writeOnly fields; the format checker enforces
            # email, uuid and date-time (rfc3339-validator).
            validator = OAS30ReadValidator(
                {**_closed(schema), "components": self._components},
                format_checker=oas30_format_checker,
            )
            self._validators[key] = validator
        return validator


_PROBLEM_CONTENT = {
    "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
}


def _describe(error: ValidationError) -> str:
    where = "".join(f"[{part!r}]" if isinstance(part, int) else f".{part}" for part in error.path)
    return f"body{where}: {error.message}"


@functools.cache
def session_guard() -> SchemaGuard:
    spec = SchemaGenerator().get_schema(request=None, public=True)
    # Through JSON, as a client reads it (lazy translation strings become plain text).
    return SchemaGuard(spec=json.loads(json.dumps(spec, default=str)))
