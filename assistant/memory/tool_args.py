"""The memory tools' arguments as pydantic models: the parameters offered and their check.

Each model gives both the JSON schema of a tool's parameters (what the model is offered)
and the check of a call's arguments. The check is forgiving where the meaning is clear (a
number where text is wanted, "7" for a whole number, keys nobody asked for) and says what
to correct otherwise, in words the model can act on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, ValidationError
from pydantic_core import PydanticCustomError

__all__ = ["TOOL_SPECS", "ArgumentError", "validated"]


class ArgumentError(ValueError):
    """A tool call's arguments the model must correct (the message says how)."""


def _as_text(value: Any) -> str:
    if isinstance(value, list | dict):  # a small model's structure is not text to keep
        raise PydanticCustomError("not_text", "must be text", {"kind": type(value).__name__})
    return value if isinstance(value, str) else str(value)


def _as_whole(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise PydanticCustomError("not_whole", "must be a whole number") from None


Text = Annotated[str, BeforeValidator(_as_text)]
Date = Annotated[str, BeforeValidator(_as_text), Field(description="YYYY-MM-DD")]
Whole = Annotated[int, BeforeValidator(_as_whole)]
Label = Annotated[
    Literal["human", "persona"],
    BeforeValidator(_as_text),
    Field(description="'human': lasting facts about the user; 'persona': how you behave"),
]


class CoreMemoryAppend(BaseModel):
    """Add a line to a core memory block (always in your prompt)."""

    label: Label
    content: Text


class CoreMemoryReplace(BaseModel):
    """Replace text in a core memory block (exact old text)."""

    label: Label
    old_content: Text
    new_content: Text


class RecallSearch(BaseModel):
    """Search every past message by keywords and meaning, optionally within a date range."""

    query: Text
    start_date: Date = None  # type: ignore[assignment]  # absent: no bound
    end_date: Date = None  # type: ignore[assignment]


class ArchivalInsert(BaseModel):
    """Save a note to long-term archival memory."""

    content: Text


class ArchivalSearch(BaseModel):
    """Search documents and notes in archival memory."""

    query: Text


class RememberFact(BaseModel):
    """Propose a fact about the user for their profile (the user reviews it before it is
    trusted)."""

    statement: Text
    scope: Annotated[Text, Field(description="e.g. work, health")] = None  # type: ignore[assignment]
    # The scale is offered, not enforced: an importance outside it is clamped, not refused.
    importance: Annotated[Whole, Field(json_schema_extra={"minimum": 1, "maximum": 10})] = None  # type: ignore[assignment]


class ForgetFact(BaseModel):
    """Mark a stored fact as wrong so it is no longer used (kept in history; the user can
    undo)."""

    fact_id: Whole
    reason: Text = None  # type: ignore[assignment]


_MODELS: dict[str, type[BaseModel]] = {
    "core_memory_append": CoreMemoryAppend,
    "core_memory_replace": CoreMemoryReplace,
    "recall_search": RecallSearch,
    "archival_insert": ArchivalInsert,
    "archival_search": ArchivalSearch,
    "remember_fact": RememberFact,
    "forget_fact": ForgetFact,
}


def _parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as tool parameters: no titles, no defaults of absent keys."""
    schema = model.model_json_schema()
    properties = {
        name: {k: v for k, v in prop.items() if k not in ("title", "default")}
        for name, prop in schema["properties"].items()
    }
    return {"type": "object", "properties": properties, "required": schema.get("required", [])}


def _spec(name: str, model: type[BaseModel]) -> dict[str, Any]:
    description = " ".join((model.__doc__ or "").split())
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": _parameters(model)},
    }


TOOL_SPECS: list[dict[str, Any]] = [_spec(name, model) for name, model in _MODELS.items()]
_PARAMETERS = {spec["function"]["name"]: spec["function"]["parameters"] for spec in TOOL_SPECS}


def validated(name: str, arguments: Any) -> dict[str, Any]:
    """A call's arguments, checked and converted: only the keys the tool knows, as given.

    Raises:
        ArgumentError: no such tool, or arguments the model must correct (the first
            problem, in the order the model wrote its arguments).
    """
    if name not in _MODELS:
        raise ArgumentError(f"There is no tool '{name}'. Available: {', '.join(_MODELS)}.")
    if not isinstance(arguments, dict):
        raise ArgumentError(f"{name} takes a JSON object of arguments.")
    for key in _PARAMETERS[name]["required"]:
        if arguments.get(key) in (None, ""):
            raise ArgumentError(f"{name} needs '{key}'.")
    try:
        checked = _MODELS[name].model_validate(arguments)
    except ValidationError as exc:
        order = list(arguments)
        first = min(exc.errors(), key=lambda e: order.index(e["loc"][0]))
        raise ArgumentError(_problem(name, first, _PARAMETERS[name]["properties"])) from None
    return checked.model_dump(exclude_unset=True)


_SAYINGS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], str]] = {
    "not_whole": lambda _e, _p: "must be a whole number",
    "not_text": lambda e, _p: f"must be text, not a {e['ctx']['kind']}",
    "literal_error": lambda _e, p: f"must be one of {p['enum']}",
}


def _problem(name: str, error: Mapping[str, Any], properties: Mapping[str, Any]) -> str:
    key = error["loc"][0]
    say = _SAYINGS.get(error["type"])
    what = say(error, properties[key]) if say else error["msg"]
    return f"{name}: '{key}' {what}."
