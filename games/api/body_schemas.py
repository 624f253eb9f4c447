"""The OpenAPI components of the match routes' bodies, generated from their declarations
(``games.services.bodies``) by msgspec's JSON Schema generator, translated to OpenAPI 3.0.3.

A view names its body with ``shape(Match)`` in ``extend_schema``: a reference to the
component, which ``shape_components`` (a drf-spectacular postprocessing hook) adds to the
schema. A serializer field that holds one of these shapes uses ``ShapeField``.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import msgspec
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.event_schema import openapi_30
from games.services.bodies import SHAPES

_REF = "#/components/schemas/{name}"


def shape(declaration: type, *, nullable: bool = False) -> dict[str, Any]:
    """The schema of a body declared as ``declaration``: a reference to its component."""
    ref = {"$ref": _REF.format(name=declaration.__name__)}
    return {"allOf": [ref], "nullable": True} if nullable else ref


@cache
def components() -> dict[str, dict[str, Any]]:
    _, found = msgspec.json.schema_components(SHAPES, ref_template=_REF)
    return {name: openapi_30(schema) for name, schema in found.items()}


def shape_components(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every declared shape as a component (the event
    catalogue's hook then makes ``Event`` a union of the event types)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in components().items():
        # A copy: the later hooks rewrite the schema in place, never the declarations' own.
        schemas.setdefault(name, copy.deepcopy(schema))
    return result


def shape_field(declaration: type, *, nullable: bool = False, **kwargs: Any) -> Any:
    """A read-only serializer field whose schema is ``declaration``'s component (a body built
    elsewhere that nests one of these shapes, e.g. a series' match results)."""

    @extend_schema_field(shape(declaration, nullable=nullable))
    class ShapeField(serializers.JSONField):
        pass

    return ShapeField(read_only=True, allow_null=nullable, **kwargs)
