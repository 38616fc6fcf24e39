"""Pydantic's validation errors as one line each, the way sleep tells them to the model.

A retry prompt quotes them (so the model can correct its answer) and the run records them,
so each says where (``$.facts[0].importance``) and what is wanted (``must be <= 10``),
read from the JSON schema the model was sent. Within an object, missing keys come first,
then the other problems in the order of its properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["error_text", "sort_key"]

_TYPES = frozenset(
    {"int_type", "float_type", "string_type", "list_type", "model_type", "dict_type", "bool_type"}
)


def _node(schema: Mapping[str, Any], loc: tuple[Any, ...]) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema
    for step in loc:
        node = node.get("items", {}) if isinstance(step, int) else node["properties"][step]
    return node


def _path(prefix: str, loc: tuple[Any, ...]) -> str:
    return prefix + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in loc)


def error_text(schema: Mapping[str, Any], error: Mapping[str, Any], prefix: str = "$") -> str:
    """One pydantic error under ``schema``, as ``$.path must ...``."""
    loc, kind = tuple(error["loc"]), error["type"]
    path = _path(prefix, loc)
    if kind == "missing":
        return f"{path} is missing"
    node = _node(schema, loc)
    if kind in _TYPES:
        return f"{path} must be {node.get('type', 'object')}, not {type(error['input']).__name__}"
    if kind == "literal_error":
        return f"{path} must be one of {node['enum']}"
    if kind == "greater_than_equal":
        return f"{path} must be >= {node['minimum']}"
    if kind == "less_than_equal":
        return f"{path} must be <= {node['maximum']}"
    if kind in ("string_too_short", "string_too_long"):
        return f"{path} must be {node.get('minLength', 0)}-{node['maxLength']} long"
    if kind == "string_pattern_mismatch":
        return f"{path} must match {node['pattern']}"
    if kind in ("too_short", "too_long"):
        return f"{path} must have {node.get('minItems', 0)}-{node['maxItems']} items"
    return f"{path}: {error['msg']}"


def sort_key(schema: Mapping[str, Any], loc: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
    """Where an error sorts: by item, then missing keys first, then by property order."""
    node: Mapping[str, Any] = schema
    key: list[tuple[int, int]] = []
    for n, step in enumerate(loc):
        if isinstance(step, int):
            key.append((0, step))
            node = node.get("items", {})
            continue
        names = list(node.get("properties", {}))
        if n == len(loc) - 1 and kind == "missing":
            key.append((0, node.get("required", []).index(step)))
        else:
            key.append((1, names.index(step) if step in names else len(names)))
        node = node.get("properties", {}).get(step, {})
    return tuple(key)
