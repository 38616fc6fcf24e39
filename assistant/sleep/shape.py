"""`Shape`: one node of a reply's JSON schema that knows the pydantic type validating it.

Read as a mapping it is the JSON schema itself (``shape["properties"]["facts"]["items"]``,
which ``repair`` walks to mend a reply); asked, it says what is wrong with a value at that
depth (`Shape.errors`), in the words of ``shape_errors``.

Some values of a reply are bound to what Hippo showed the model (the message ids of a
transcript, the labels of the memories shown): their type is built once, marked `bound`
to a key, and each `Shape` carries the JSON node of each key for its call (an ``enum`` of
the ids shown, say). The node is written into the schema sent as ``format`` and is what
the value is checked against (pydantic's validation context), so a reply model is built
once per process, not once per call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    TypeAdapter,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)
from pydantic import ValidationError as _Invalid
from pydantic_core import PydanticCustomError

from assistant.sleep.shape_errors import error_text, sort_key

__all__ = ["Nodes", "Shape", "bound", "bound_length", "schema_errors"]

Nodes = Mapping[str, Mapping[str, Any]]
"""The JSON node of each bound key for one call (see the module's doc)."""

# Mark bound nodes in the generic schema (never sent): a value's node is replaced by the
# call's, a list's length is updated from it.
_BOUND = "x-hippo-bound"
_LENGTH = "x-hippo-bound-length"


class Shape(Mapping[str, Any]):
    """One node of a reply's JSON schema, with the pydantic type that validates it.

    Read as a mapping it is the JSON schema itself; ``properties`` and ``items`` give
    shapes again, so a walk over the schema can validate at any depth.

    Args:
        schema: the JSON schema of this node (``$ref``s resolved, bound nodes written).
        kind: the pydantic type of this node.
        nodes: the JSON node of each bound key for this call.
    """

    def __init__(self, schema: Mapping[str, Any], kind: Any, nodes: Nodes) -> None:
        self._schema = schema
        self._kind = kind
        self._nodes = nodes
        self._below: dict[str, Any] = {}  # the shapes under this one, made once

    @classmethod
    def of(cls, model: type[BaseModel], nodes: Nodes | None = None) -> Shape:
        """The root shape of a reply model, its bound values bound to ``nodes`` (a key
        without a node keeps the default its `bound` type names)."""
        nodes = nodes or {}
        return cls(_written(_inlined(model), nodes), model, nodes)

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
                {
                    name: Shape(sub, _field_type(self._kind, name), self._nodes)
                    for name, sub in value.items()
                }
                if key == "properties"
                else Shape(value, _item_type(self._kind), self._nodes)
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
            _adapter(self._kind).validate_python(value, context=self._nodes)
        except _Invalid as exc:
            found = [e for e in exc.errors() if _within_bounds(self._schema, e["loc"])]
            found.sort(key=lambda e: sort_key(self._schema, e["loc"], e["type"]))
            return [error_text(self._schema, e, path) for e in found]
        return []


def schema_errors(value: Any, shape: Shape, path: str = "$") -> list[str]:
    """What is wrong with ``value`` for ``shape`` (empty when it is valid)."""
    return shape.errors(value, path)


def bound(key: str, kind: Any, default: Mapping[str, Any]) -> Any:
    """``kind`` (an integer or string type), checked against the call's node for ``key``.

    The node may hold ``enum``, ``minimum``, ``maximum``, ``minLength``, ``maxLength`` and
    ``pattern``; ``default`` is the node where the call gives none (a generic schema).
    """

    def check(value: Any, info: ValidationInfo) -> Any:
        _meets(value, _node(info, key, default))
        return value

    return Annotated[kind, AfterValidator(check), WithJsonSchema({_BOUND: key, **default})]


def bound_length(key: str, kind: Any, default: int) -> Any:
    """A list type ``kind`` of at most the call's ``maxItems`` for ``key`` (else ``default``)."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        most = _node(info, key, {"maxItems": default})["maxItems"]
        if isinstance(value, list) and len(value) > most:  # as pydantic: before the items
            raise PydanticCustomError("too_long", "at most {most} items", {"most": most})
        return handler(value)

    marker = Field(json_schema_extra={_LENGTH: key, "maxItems": default})
    return Annotated[kind, marker, WrapValidator(check)]


def _node(info: ValidationInfo, key: str, default: Mapping[str, Any]) -> Mapping[str, Any]:
    context = info.context if isinstance(info.context, Mapping) else {}
    found: Mapping[str, Any] = context.get(key, default)
    return found


_RULES: tuple[tuple[str, str, Callable[[Any, Any], bool]], ...] = (
    ("enum", "literal_error", lambda value, allowed: value in allowed),
    ("minimum", "greater_than_equal", lambda value, low: value >= low),
    ("maximum", "less_than_equal", lambda value, high: value <= high),
    ("minLength", "string_too_short", lambda value, low: len(value) >= low),
    ("maxLength", "string_too_long", lambda value, high: len(value) <= high),
    ("pattern", "string_pattern_mismatch", lambda value, rule: re.search(rule, value) is not None),
)


def _meets(value: Any, node: Mapping[str, Any]) -> None:
    """Raise the error pydantic would for the first rule of ``node`` that ``value`` breaks."""
    for keyword, kind, holds in _RULES:
        if keyword in node and not holds(value, node[keyword]):
            raise PydanticCustomError(kind, "must meet {keyword}", {"keyword": keyword})


def _written(schema: Mapping[str, Any], nodes: Nodes) -> dict[str, Any]:
    """A fresh copy of ``schema`` with each bound node's marker replaced by its call's node
    (a node the call does not give keeps what the generic schema says there)."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if node.get(_BOUND) in nodes:
            return dict(nodes[node[_BOUND]])
        out = {key: walk(value) for key, value in node.items() if key not in (_BOUND, _LENGTH)}
        if _LENGTH in node:
            out.update(nodes.get(node[_LENGTH], {}))
        return out

    written: dict[str, Any] = walk(schema)  # a dict walks to a dict
    return written


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


@functools.cache
def _inlined(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with its ``$defs`` put in place and without titles (made
    once a model: `Shape.of` copies it).

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
