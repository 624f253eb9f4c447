"""The event catalogue (``games/events.py``) rendered into the OpenAPI schema.

``Event`` becomes a union discriminated by ``type``: one component per event type, whose
``data`` is the JSON Schema of that type's ``TypedDict`` (translated to OpenAPI 3.0.3), so the
documentation and the test suite's response check both follow the catalogue.
"""

from __future__ import annotations

from typing import Any

from games.events import CATALOGUE, EventType, json_schema


def openapi_30(schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema 2020-12 → OpenAPI 3.0.3: ``{"anyOf": [X, {"type": "null"}]}`` becomes X
    with ``nullable`` (a reference wrapped in ``allOf``, as 3.0 ignores a reference's
    siblings); an ``enum`` gets its ``type``."""
    schema = dict(schema)
    options = schema.pop("anyOf", None)
    if options is not None:
        rest = [option for option in options if option != {"type": "null"}]
        nullable = {"nullable": True} if len(rest) < len(options) else {}
        if len(rest) == 1:
            only = openapi_30(rest[0])
            if "$ref" in only and (nullable or schema):
                only = {"allOf": [only]}
            return {**schema, **only, **nullable}
        schema["anyOf"] = [openapi_30(option) for option in rest]
        schema.update(nullable)
    if "enum" in schema and "type" not in schema:
        kinds = {type(value) for value in schema["enum"] if value is not None}
        if kinds == {str}:
            schema["type"] = "string"
    if "properties" in schema:
        schema["properties"] = {k: openapi_30(v) for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        schema["items"] = openapi_30(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        schema["additionalProperties"] = openapi_30(schema["additionalProperties"])
    return schema


def _component_name(name: str) -> str:
    return "Event" + "".join(part.capitalize() for part in name.split("_"))


def _event_component(event: EventType[Any]) -> dict[str, Any]:
    data = openapi_30(json_schema(event.data))
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
    """drf-spectacular postprocessing hook: one component per event type, and ``Event``
    (games/services/bodies.py) as their union."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    mapping = {}
    for name, event in CATALOGUE.items():
        component = _component_name(name)
        schemas[component] = _event_component(event)
        mapping[name] = f"#/components/schemas/{component}"
    schemas["Event"] = {
        "description": "A match event, redacted for the reader. One schema per `type`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return result
