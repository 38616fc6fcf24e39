"""A small value valid for a JSON schema, for replies to requests with `format`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["schema_instance"]

_STRING_FORMATS = {"date-time": "1970-01-01T00:00:00Z", "date": "1970-01-01", "email": "a@b.c"}


def schema_instance(schema: Any, root: Any = None) -> Any:
    """A small value valid for `schema` (the subset structured outputs use).

    Args:
        schema: A JSON schema; `$ref`s resolve against `root`.
        root: The document `$ref`s point into; defaults to `schema`.

    Returns:
        A JSON-able value: defaults, consts and first enum members where given, all
        properties of objects, the fewest array items allowed.
    """
    root = schema if root is None else root
    if not isinstance(schema, Mapping):
        return {}
    if "$ref" in schema:
        return schema_instance(_resolve(schema["$ref"], root), root)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return schema_instance(schema[key][0], root)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_resolve(part["$ref"], root) if "$ref" in part else part)
        return schema_instance(merged, root)
    return _typed(schema, root)


def _typed(schema: Mapping[str, Any], root: Any) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "object":
        properties = schema.get("properties", {})
        value = {name: schema_instance(sub, root) for name, sub in properties.items()}
        value.update({name: "" for name in schema.get("required", []) if name not in value})
        return value
    if kind == "array":
        return [schema_instance(schema.get("items", {}), root)] * int(schema.get("minItems", 0))
    if kind == "string":
        return _STRING_FORMATS.get(schema.get("format", ""), "x" * int(schema.get("minLength", 0)))
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    return {"boolean": False, "null": None}.get(kind or "", {})


def _number(schema: Mapping[str, Any], *, integer: bool) -> float | int:
    low = schema.get("minimum", schema.get("exclusiveMinimum", -math.inf) + 1)
    high = schema.get("maximum", schema.get("exclusiveMaximum", math.inf) - 1)
    value = min(max(0, low), high)
    return math.ceil(value) if integer else float(value)


def _resolve(ref: str, root: Any) -> Any:
    node = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node
