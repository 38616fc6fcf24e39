"""The JSON schemas sleep sends as Ollama's ``format``, and a validator for the replies.

Ollama constrains decoding to the schema, but a small model, a truncated reply or an old
server can still return something else, so every reply is checked here against the same
schema (the subset these schemas use) before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "CANDIDATES",
    "EPISODES",
    "INSIGHTS",
    "QUESTIONS",
    "UPDATE",
    "candidates_schema",
    "episodes_schema",
    "insights_schema",
    "schema_errors",
    "update_schema",
]


def _string(low: int = 0, high: int = 300, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "minLength": low, "maxLength": high, **extra}


def _integer(low: int | None = None, high: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer"}
    if low is not None:
        out["minimum"] = low
    if high is not None:
        out["maximum"] = high
    return out


def _array(items: dict[str, Any], high: int, low: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": items, "minItems": low, "maxItems": high}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }


_ENUM_LIMIT = 500  # more ids than this are bounded by range instead of listed


def _ids(shown: Sequence[int]) -> dict[str, Any]:
    """An id Hippo showed: listed, so that a constrained model cannot write another.

    With nothing shown (a generic schema) any positive integer; with very many, the range.
    """
    ids = sorted(set(shown))
    if not ids:
        return _integer(1)
    if len(ids) > _ENUM_LIMIT:
        return _integer(ids[0], ids[-1])
    return {"type": "integer", "enum": ids}


def _labels(shown: Sequence[str]) -> dict[str, Any]:
    if not shown:
        return _string(3, 30, pattern=r"^(fact|episode):\d+$")
    return {"type": "string", "enum": sorted(set(shown))}


def episodes_schema(ids: Sequence[int] = ()) -> dict[str, Any]:
    """The summarise step's reply; message ids limited to ``ids`` (the ones shown)."""
    dated_item = _object(
        {"text": _string(1, 300), "when": _string(0, 80), "message_id": _ids(ids)},
        {"date": _string(0, 10)},
    )
    episode = _object(
        {
            "first_message_id": _ids(ids),
            "last_message_id": _ids(ids),
            "title": _string(0, 120),
            "summary": _string(1, 2000),
            "topics": _array(_string(1, 60), 8),
            "importance": _integer(1, 10),
            "dated_items": _array(dated_item, 10),
        }
    )
    return _object({"episodes": _array(episode, 6, 1)})


def candidates_schema(ids: Sequence[int] = ()) -> dict[str, Any]:
    """The extract step's reply; evidence limited to ``ids`` (the message ids shown)."""
    item = _object(
        {
            "statement": _string(3, 300),
            "subject": _string(0, 60),
            "predicate": _string(0, 60),
            "source": {"type": "string", "enum": ["user_stated", "assistant_inferred"]},
            "message_ids": _array(_ids(ids), 10, 1),
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "importance": _integer(1, 10),
        },
        {"scope": _string(0, 30), "until": _string(0, 80)},
    )
    return _object({"facts": _array(item, 20)})


def update_schema(candidates: int = 0, fact_ids: Sequence[int] = ()) -> dict[str, Any]:
    """The update step's reply: one decision per candidate numbered 0..``candidates``-1,
    naming one of ``fact_ids`` (or 0 for add and ignore)."""
    number = {"type": "integer", "enum": list(range(candidates))} if candidates else _integer(0)
    fact = {"type": "integer", "enum": [0, *sorted(set(fact_ids))]} if fact_ids else _integer(0)
    decision = _object(
        {
            "candidate": number,
            "action": {"type": "string", "enum": ["add", "reinforce", "supersede", "ignore"]},
            "fact_id": fact,
        },
        {"reason": _string(0, 300)},
    )
    return _object({"decisions": _array(decision, max(candidates, 1) if candidates else 50)})


def insights_schema(labels: Sequence[str] = ()) -> dict[str, Any]:
    """The reflection's insights, citing only ``labels`` (the memories shown)."""
    insight = _object(
        {
            "statement": _string(5, 300),
            "evidence": _array(_labels(labels), 10, 1),
            "importance": _integer(1, 10),
        }
    )
    return _object({"insights": _array(insight, 10)})


EPISODES = episodes_schema()
CANDIDATES = candidates_schema()
UPDATE = update_schema()
QUESTIONS = _object({"questions": _array(_string(5, 200), 5, 1)})
INSIGHTS = insights_schema()

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int, float),
    "number": (int, float),
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if not isinstance(value, _TYPES[kind]):
        return False
    return kind != "integer" or float(value).is_integer()


def schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """What is wrong with ``value`` under ``schema`` (empty when it is valid).

    Supports the subset the schemas above use: type, properties, required, enum,
    minimum/maximum, minLength/maxLength, minItems/maxItems, items and pattern.
    """
    kind = schema.get("type")
    if kind and not _type_ok(value, kind):
        return [f"{path} must be {kind}, not {type(value).__name__}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path} must be one of {schema['enum']}")
    if kind in ("integer", "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path} must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path} must be <= {schema['maximum']}")
    elif kind == "string":
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", 10**9):
            errors.append(f"{path} must be {schema.get('minLength', 0)}-{schema['maxLength']} long")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path} must match {schema['pattern']}")
    elif kind == "array":
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", 10**9):
            errors.append(
                f"{path} must have {schema.get('minItems', 0)}-{schema['maxItems']} items"
            )
        for i, item in enumerate(value[: schema.get("maxItems", len(value))]):
            errors += schema_errors(item, schema.get("items", {}), f"{path}[{i}]")
    elif kind == "object":
        errors += [f"{path}.{k} is missing" for k in schema.get("required", []) if k not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors += schema_errors(value[key], sub, f"{path}.{key}")
    return errors
