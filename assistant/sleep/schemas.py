"""The JSON schemas sleep sends as Ollama's ``format``, and a validator for the replies.

Ollama constrains decoding to the schema, but a small model, a truncated reply or an old
server can still return something else, so every reply is checked here against the same
schema (the subset these schemas use) before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "CANDIDATES",
    "EPISODES",
    "INSIGHTS",
    "QUESTIONS",
    "UPDATE",
    "schema_errors",
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


_DATED_ITEM = _object(
    {"text": _string(1, 300), "when": _string(0, 80), "message_id": _integer(1)},
    {"date": _string(0, 10)},
)
EPISODES = _object(
    {
        "episodes": _array(
            _object(
                {
                    "first_message_id": _integer(1),
                    "last_message_id": _integer(1),
                    "title": _string(0, 120),
                    "summary": _string(1, 2000),
                    "topics": _array(_string(1, 60), 8),
                    "importance": _integer(1, 10),
                    "dated_items": _array(_DATED_ITEM, 10),
                }
            ),
            6,
            1,
        )
    }
)
CANDIDATES = _object(
    {
        "facts": _array(
            _object(
                {
                    "statement": _string(3, 300),
                    "subject": _string(0, 60),
                    "predicate": _string(0, 60),
                    "source": {"type": "string", "enum": ["user_stated", "assistant_inferred"]},
                    "message_ids": _array(_integer(1), 10, 1),
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "importance": _integer(1, 10),
                },
                {"scope": _string(0, 30), "until": _string(0, 80)},
            ),
            20,
        )
    }
)
UPDATE = _object(
    {
        "decisions": _array(
            _object(
                {
                    "candidate": _integer(0),
                    "action": {
                        "type": "string",
                        "enum": ["add", "reinforce", "supersede", "ignore"],
                    },
                    "fact_id": _integer(0),
                },
                {"reason": _string(0, 300)},
            ),
            50,
        )
    }
)
QUESTIONS = _object({"questions": _array(_string(5, 200), 5, 1)})
INSIGHTS = _object(
    {
        "insights": _array(
            _object(
                {
                    "statement": _string(5, 300),
                    "evidence": _array(_string(3, 30, pattern=r"^(fact|episode):\d+$"), 10, 1),
                    "importance": _integer(1, 10),
                }
            ),
            10,
        )
    }
)

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
