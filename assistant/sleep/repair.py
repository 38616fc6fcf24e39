"""Reading a small model's JSON the way a careful person would, where the meaning is clear.

Real models wrap JSON in thinking tags, code fences or prose, stop at the token cap in
the middle of a list, answer a bare list or a differently-keyed object, write ids as
"[id 12]", rate importance 20 on a 1-10 scale, and break one item of ten. Each of these
has one clear reading, which `read_reply` takes and says it took (a note per repair);
anything else stays an error for the caller to retry or record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from assistant.sleep.schemas import Shape

__all__ = ["Reading", "read_reply", "salvage"]

_THINKING = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)
_ID = re.compile(r"\s*\[?\s*(?:id|message)?\s*#?\s*(-?\d+)\s*\]?\s*", re.IGNORECASE)
_NUMBER = re.compile(r"\s*-?\d+(?:\.\d+)?\s*")
_MAX_CUTS = 200  # truncation points tried, from the end


class Reading:
    """One reply as read: the value (None if unreadable), what is wrong, what was repaired."""

    def __init__(self) -> None:
        self.value: Any = None
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.dropped = 0

    def note(self, text: str) -> None:
        """Record one repair."""
        self.notes.append(text)


def read_reply(content: str, schema: Shape) -> Reading:
    """Parse ``content`` as JSON for ``schema``, repairing what has one clear reading.

    The repairs walk the reply's JSON schema; the check is its pydantic model's.

    Returns:
        A ``Reading``: ``value`` valid for the schema (and ``errors`` empty), or ``errors``.
    """
    reading = Reading()
    text = _unwrapped(content, reading)
    if not text:
        reading.errors = ["the reply was empty"]
        return reading
    value = _decoded(text, reading)
    if value is None:
        return reading
    value = _reshaped(value, schema, reading)
    value = _coerced(value, schema, "$", reading)
    value = _without_broken_items(value, schema, reading)
    reading.errors = schema.errors(value)
    if not reading.errors:
        reading.value = value
    return reading


def _unwrapped(content: str, reading: Reading) -> str:
    """The reply without thinking tags, code fences and prose around the JSON."""
    text = content.strip()
    if _THINKING.search(text):
        text = _THINKING.sub("", text).strip()
        reading.note("removed thinking tags")
    if text.startswith("```"):
        text = text.strip("`").strip()
        text = text.removeprefix("json").strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if starts and min(starts) > 0 and not text.startswith('"'):
        reading.note("skipped text before the JSON")
        text = text[min(starts) :]
    return text


def _decoded(text: str, reading: Reading) -> Any:
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        salvaged = salvage(text)
        if salvaged is None:
            reading.errors = [f"the reply was not JSON ({str(exc)[:80]})"]
            return None
        reading.note("completed JSON cut off mid-way")
        return salvaged
    if text[end:].strip():
        reading.note("ignored text after the JSON")
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            value = json.loads(value)  # JSON sent as a string of JSON
        except (json.JSONDecodeError, RecursionError):
            return value
        reading.note("read JSON sent as a string")
    return value


def salvage(text: str) -> Any:
    """The longest complete prefix of truncated JSON, closed; None if there is none.

    ``{"facts": [{"a": 1}, {"a": 2}, {"a"`` reads as ``{"facts": [{"a": 1}, {"a": 2}]}``:
    the item cut off is lost, the whole ones are kept.
    """
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            escaped = not escaped and ch == "\\"
            in_string = escaped or ch != '"'
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                break
            cuts.append((i + 1, "".join(reversed(stack))))
        elif ch == ",":
            cuts.append((i, "".join(reversed(stack))))
    for end, closers in reversed(cuts[-_MAX_CUTS:]):
        try:
            return json.loads(text[:end] + closers)
        except (json.JSONDecodeError, RecursionError):
            continue
    return None


def _list_key(schema: Mapping[str, Any]) -> str | None:
    """The one required array property of an object schema (``episodes``, ``facts``...)."""
    required = schema.get("required", [])
    props = schema.get("properties", {})
    arrays = [k for k in required if props.get(k, {}).get("type") == "array"]
    return arrays[0] if len(arrays) == 1 and len(required) == 1 else None


def _looks_like_item(value: Any, item: Mapping[str, Any]) -> bool:
    if not isinstance(value, dict) or item.get("type") != "object":
        return False
    required = set(item.get("required", []))
    return bool(required) and len(required & value.keys()) * 2 >= len(required)


def _reshaped(value: Any, schema: Mapping[str, Any], reading: Reading) -> Any:
    """A bare list, a lone item or a differently-keyed list, put where the schema wants it."""
    key = _list_key(schema)
    if key is None:
        return value
    item = schema["properties"][key].get("items", {})
    if isinstance(value, list):
        reading.note(f"put a bare list under {key!r}")
        return {key: value}
    if not isinstance(value, dict):
        return value
    wrapped = [v for v in value.values() if isinstance(v, dict) and key in v]
    if key not in value and len(value) == 1 and wrapped:
        reading.note(f"unwrapped {key!r} from {next(iter(value))!r}")
        value = wrapped[0]
    if key in value:
        if _looks_like_item(value[key], item):
            reading.note(f"put a lone item under {key!r} into a list")
            return {**value, key: [value[key]]}
        return value
    if _looks_like_item(value, item):
        reading.note(f"put a lone item into {key!r}")
        return {key: [value]}
    lists = [k for k, v in value.items() if isinstance(v, list)]
    if len(lists) == 1:
        reading.note(f"read {lists[0]!r} as {key!r}")
        return {key: value[lists[0]]}
    nested = [v for v in value.values() if _looks_like_item(v, item)]
    if len(nested) == 1:
        reading.note(f"put a lone item into {key!r}")
        return {key: nested}
    return value


def _coerced(value: Any, schema: Mapping[str, Any], path: str, reading: Reading) -> Any:
    """Values with one clear reading under ``schema``, made valid (each change noted)."""
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return _number(value, schema, path, reading)
    if kind == "string":
        return _string(value, schema, path, reading)
    if kind == "array":
        return _array(value, schema, path, reading)
    if kind == "object" and isinstance(value, dict):
        return _object(value, schema, path, reading)
    return value


def _number(value: Any, schema: Mapping[str, Any], path: str, reading: Reading) -> Any:
    if isinstance(value, str):
        pattern = _ID if schema.get("type") == "integer" else _NUMBER
        if not pattern.fullmatch(value):
            return value
        number = float(re.findall(r"-?\d+(?:\.\d+)?", value)[0])
        reading.note(f"read {path} {value!r} as a number")
        value = number
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if schema.get("type") == "integer" and not float(value).is_integer():
        value = round(value)
        reading.note(f"rounded {path}")
    if schema.get("type") == "integer":
        value = int(value)
    if "enum" in schema:
        return value  # an id Hippo did not show has no clear reading
    low, high = schema.get("minimum"), schema.get("maximum")
    clamped = min(
        max(value, low if low is not None else value), high if high is not None else value
    )
    if clamped != value:
        reading.note(f"clamped {path} {value} to {clamped}")
    return clamped


def _string(value: Any, schema: Mapping[str, Any], path: str, reading: Reading) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return value
    if "enum" in schema and value not in schema["enum"]:
        folded = {str(e).casefold().replace("-", "_").replace(" ", "_"): e for e in schema["enum"]}
        found = folded.get(value.strip().casefold().replace("-", "_").replace(" ", "_"))
        if found is not None:
            reading.note(f"read {path} {value!r} as {found!r}")
            return found
    high = schema.get("maxLength")
    if high is not None and len(value) > high:
        reading.note(f"cut {path} to {high} characters")
        return value[:high].rstrip()
    return value


def _array(value: Any, schema: Mapping[str, Any], path: str, reading: Reading) -> Any:
    items = schema.get("items", {})
    if not isinstance(value, list):
        if items.get("type") in ("integer", "string") and isinstance(value, int | str):
            reading.note(f"put {path} into a list")
            value = [value]
        else:
            return value
    high = schema.get("maxItems")
    if high is not None and len(value) > high:
        reading.note(f"kept the first {high} of {len(value)} items of {path}")
        value = value[:high]
    return [_coerced(v, items, f"{path}[{i}]", reading) for i, v in enumerate(value)]


def _object(
    value: dict[str, Any], schema: Mapping[str, Any], path: str, reading: Reading
) -> dict[str, Any]:
    props = schema.get("properties", {})
    out = dict(value)
    for key in schema.get("required", []):
        # A missing list at the top is the answer missing, not an empty answer.
        if path != "$" and key not in out and _empty_allowed(props.get(key, {})):
            out[key] = [] if props[key].get("type") == "array" else ""
            reading.note(f"{path}.{key} was missing: left empty")
    for key, sub in props.items():
        if key in out:
            out[key] = _coerced(out[key], sub, f"{path}.{key}", reading)
    return out


def _empty_allowed(schema: Mapping[str, Any]) -> bool:
    if schema.get("type") == "array":
        return bool(schema.get("minItems", 0) == 0)
    return schema.get("type") == "string" and bool(schema.get("minLength", 0) == 0)


def _without_broken_items(value: Any, schema: Shape, reading: Reading) -> Any:
    """The answer's valid items only, when some are valid: one broken item costs only itself.

    A broken item inside an item (a dated item of an episode) is dropped first, so that it
    does not cost its whole episode; at the top, an answer whose items are all broken is a
    failed answer, not an empty one.
    """
    key = _list_key(schema)
    if key is None or not isinstance(value, dict) or not isinstance(value.get(key), list):
        return value
    sub = schema["properties"][key]
    item: Shape = sub["items"]
    items = [_nested_dropped(v, item, f"$.{key}[{n}]", reading) for n, v in enumerate(value[key])]
    good = [v for v in items if not item.errors(v)]
    if len(good) == len(items) or not good or len(good) < sub.get("minItems", 0):
        return {**value, key: items}
    for n, one in enumerate(items):
        problems = item.errors(one, f"$.{key}[{n}]")
        if problems:
            reading.note(f"dropped {key} item {n}: {problems[0]}")
    reading.dropped += len(items) - len(good)
    return {**value, key: good}


def _nested_dropped(value: Any, schema: Shape, path: str, reading: Reading) -> Any:
    """An item with the broken entries of its own lists of objects dropped."""
    if not isinstance(value, dict) or schema.get("type") != "object":
        return value
    out = dict(value)
    for key, sub in schema.get("properties", {}).items():
        entries = out.get(key)
        item = sub.get("items", {})
        if sub.get("type") != "array" or item.get("type") != "object":
            continue
        if not isinstance(entries, list):
            continue
        good = [e for e in entries if not item.errors(e)]
        if len(good) < len(entries) and len(good) >= sub.get("minItems", 0):
            reading.note(f"dropped {len(entries) - len(good)} broken entries of {path}.{key}")
            reading.dropped += len(entries) - len(good)
            out[key] = good
    return out
