"""The event catalogue (``games/events.py``) rendered into the OpenAPI schema.

``EventOutput`` becomes a union discriminated by ``type``: one component per event type, whose
``data`` is the JSON Schema of that type's ``TypedDict`` (translated to OpenAPI 3.0.3), so the
documentation and the test suite's response check both follow the catalogue.
"""

from __future__ import annotations

from typing import Any

from games.events import CATALOGUE, EventType, json_schema


def _openapi(schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema 2020-12 → OpenAPI 3.0.3: ``{"anyOf": [X, {"type": "null"}]}`` becomes X
    with ``nullable``; an ``enum`` gets its ``type``."""
    schema = dict(schema)
    options = schema.pop("anyOf", None)
    if options is not None:
        rest = [option for option in options if option != {"type": "null"}]
        if len(rest) == 1:
            return {**_openapi(rest[0]), "nullable": len(rest) < len(options)}
        schema["anyOf"] = [_openapi(option) for option in rest]
        if len(rest) < len(options):
            schema["nullable"] = True
    if "enum" in schema and "type" not in schema:
        kinds = {type(value) for value in schema["enum"] if value is not None}
        if kinds == {str}:
            schema["type"] = "string"
    if "properties" in schema:
        schema["properties"] = {k: _openapi(v) for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        schema["items"] = _openapi(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        schema["additionalProperties"] = _openapi(schema["additionalProperties"])
    return schema


def _component_name(name: str) -> str:
    return "Event" + "".join(part.capitalize() for part in name.split("_"))


def _event_component(event: EventType[Any]) -> dict[str, Any]:
    data = _openapi(json_schema(event.data))
    notes = [event.doc]
    if event.private is not None:
        notes.append("A seated reader also finds its own private part merged into `data`.")
    if event.may_be_table_only:
        notes.append(
            "Under `history: table_only`, `data` is null for a reader past the step "
            "(a seat after its next move, a spectator after the next step) until the match ends."
        )
        data["nullable"] = True
    if not event.show_at:
        notes.append("`at` is always null: the time would tell when a seat submitted.")
    return {
        "type": "object",
        "description": " ".join(notes),
        "properties": {
            "seq": {"type": "integer"},
            "type": {"type": "string", "enum": [event.name]},
            "step": {"type": "integer", "nullable": True},
            "at": {"type": "string", "format": "date-time", "nullable": True},
            "data": data,
        },
        "required": ["seq", "type", "step", "at", "data"],
    }


def event_catalogue(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: one component per event type, and ``EventOutput``
    as their union."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    mapping = {}
    for name, event in CATALOGUE.items():
        component = _component_name(name)
        schemas[component] = _event_component(event)
        mapping[name] = f"#/components/schemas/{component}"
    schemas["EventOutput"] = {
        "description": "A match event, redacted for the reader. One schema per `type`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return result
