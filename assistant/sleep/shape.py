"""`Shape`: one node of a reply's JSON schema that knows the pydantic type validating it.

Read as a mapping it is the JSON schema itself (``shape["properties"]["facts"]["items"]``,
which ``repair`` walks to mend a reply); asked, it says what is wrong with a value at that
depth (`Shape.errors`), in the words of ``shape_errors``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter
from pydantic import ValidationError as _Invalid

from assistant.sleep.shape_errors import error_text, sort_key

__all__ = ["Shape", "schema_errors"]


class Shape(Mapping[str, Any]):
    """One node of a reply's JSON schema, with the pydantic type that validates it.

    Read as a mapping it is the JSON schema itself; ``properties`` and ``items`` give
    shapes again, so a walk over the schema can validate at any depth.

    Args:
        schema: the JSON schema of this node (``$ref``s resolved).
        kind: the pydantic type of this node.
    """

    def __init__(self, schema: Mapping[str, Any], kind: Any) -> None:
        self._schema = schema
        self._kind = kind
        self._below: dict[str, Any] = {}  # the shapes under this one, made once

    @classmethod
    def of(cls, model: type[BaseModel]) -> Shape:
        """The root shape of a reply model."""
        return cls(_inlined(model), model)

    @property
    def json_schema(self) -> dict[str, Any]:
        """The JSON schema, as sent to Ollama as ``format``."""
        return dict(self._schema)

    def __getitem__(self, key: str) -> Any:
        value = self._schema[key]
        if key not in ("properties", "items"):
            return value
        if key not in self._below:  # the repairs read them once per item of a reply
            self._below[key] = (
                {name: Shape(sub, _field_type(self._kind, name)) for name, sub in value.items()}
                if key == "properties"
                else Shape(value, _item_type(self._kind))
            )
        return self._below[key]

    def get(self, key: str, default: Any = None) -> Any:
        """``shape[key]``, or ``default`` where the schema has no ``key`` (the repairs ask
        thousands of times a reply: Mapping's own way, through a KeyError, is slow)."""
        return self[key] if key in self._schema else default

    def __contains__(self, key: object) -> bool:
        return key in self._schema

    def __iter__(self) -> Iterator[str]:
        return iter(self._schema)

    def __len__(self) -> int:
        return len(self._schema)

    def errors(self, value: Any, path: str = "$") -> list[str]:
        """What is wrong with ``value`` under this node, each with its path (empty if valid)."""
        try:
            _adapter(self._kind).validate_python(value)
        except _Invalid as exc:
            found = [e for e in exc.errors() if _within_bounds(self._schema, e["loc"])]
            found.sort(key=lambda e: sort_key(self._schema, e["loc"], e["type"]))
            return [error_text(self._schema, e, path) for e in found]
        return []


def schema_errors(value: Any, shape: Shape, path: str = "$") -> list[str]:
    """What is wrong with ``value`` for ``shape`` (empty when it is valid)."""
    return shape.errors(value, path)


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _unwrapped(kind: Any) -> Any:
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _field_type(model: Any, name: str) -> Any:
    info = _unwrapped(model).model_fields[name]
    return Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation


def _item_type(kind: Any) -> Any:
    return get_args(_unwrapped(kind))[0]


def _within_bounds(schema: Mapping[str, Any], loc: tuple[Any, ...]) -> bool:
    """Whether no step of ``loc`` is an item past its list's ``maxItems`` (never read)."""
    node: Any = schema
    for step in loc:
        if isinstance(step, int):
            if step >= node.get("maxItems", step + 1):
                return False
            node = node.get("items", {})
        else:
            node = node.get("properties", {}).get(step, {})
    return True


def _inlined(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with its ``$defs`` put in place and without titles.

    A one-value enum stays an enum (pydantic writes it as ``const``): the repairs and the
    error messages read ``enum``.
    """
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "const" in node:
            node = {"enum": [node["const"]], **{k: v for k, v in node.items() if k != "const"}}
        out = {}
        for key, value in node.items():
            if key == "title":
                continue
            if key == "properties":
                out[key] = {name: walk(sub) for name, sub in value.items()}
            else:
                out[key] = walk(value)
        return out

    flat: dict[str, Any] = walk(raw)  # a dict walks to a dict
    return flat
