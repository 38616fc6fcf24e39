"""The replies sleep asks the model for, as pydantic models: Ollama's ``format`` and the check.

Ollama constrains decoding to the JSON schema it is sent, but a small model, a truncated
reply or an old server can still return something else, so every reply is checked against
the same model before anything is written. Each model gives both: its JSON schema (sent as
``format``, as Ollama's structured-output docs show) and its validation.

The replies name the ids Hippo showed the model: each model is built once, with those
values `bound` (see ``shape``), and each call's `Shape` names what it showed, as the enum
sent in ``format`` and the values the check accepts. (Built per call, the models cost
more than the rest of a sleep run's Python work for a short session.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, Strict, create_model
from pydantic_core import PydanticCustomError

from assistant.sleep.shape import Shape, bound, bound_length, schema_errors

# Also importable, built on first use: CANDIDATES, EPISODES, INSIGHTS, QUESTIONS, UPDATE.
__all__ = [
    "Shape",
    "candidates_schema",
    "episodes_schema",
    "insights_schema",
    "questions_schema",
    "schema_errors",
    "update_schema",
]

_ENUM_LIMIT = 500  # more ids than this are bounded by range instead of listed


# -- the field types -------------------------------------------------------------------


def _integral(value: Any) -> Any:
    """5.0 is the integer 5 (JSON does not tell them apart); 5.5 and True are not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _of_kind(kind: str) -> Any:
    """A check that a value is of the enum's JSON type (an enum alone takes True for 1)."""
    wanted = (str,) if kind == "string" else (int,)

    def check(value: Any) -> Any:
        value = _integral(value) if kind == "integer" else value
        if isinstance(value, bool) or not isinstance(value, wanted):
            raise PydanticCustomError(f"{'string' if kind == 'string' else 'int'}_type", kind)
        return value

    return BeforeValidator(check)


def _text(low: int = 0, high: int = 300, pattern: str | None = None) -> Any:
    return Annotated[str, Strict(), Field(min_length=low, max_length=high, pattern=pattern)]


def _integer(low: int | None = None, high: int | None = None) -> Any:
    # The conversion wraps the constrained type: so placed, the bounds stay in the schema.
    bounded = Annotated[int, Strict(), Field(ge=low, le=high)]
    return Annotated[bounded, BeforeValidator(_integral)]


def _enum(values: Sequence[Any]) -> Any:
    kind = "string" if all(isinstance(v, str) for v in values) else "integer"
    return Annotated[Literal[tuple(values)], _of_kind(kind)]


def _list(item: Any, high: int, low: int = 0) -> Any:
    return Annotated[list[item], Strict(), Field(min_length=low, max_length=high)]


def _bound_integer(key: str, low: int) -> Any:
    """An integer bound to ``key`` (ids shown, see `_ids_node`); any from ``low`` without."""
    checked = bound(key, Annotated[int, Strict()], {"minimum": low, "type": "integer"})
    return Annotated[checked, BeforeValidator(_integral)]


def _ids_node(shown: Sequence[int], low: int = 1) -> dict[str, Any]:
    """The ids Hippo showed, listed so that a constrained model cannot write another.

    With nothing shown (a generic schema) any integer from ``low``; with very many, the range.
    """
    ids = sorted(set(shown))
    if not ids:
        return {"minimum": low, "type": "integer"}
    if len(ids) > _ENUM_LIMIT:
        return {"maximum": ids[-1], "minimum": ids[0], "type": "integer"}
    return {"enum": ids, "type": "integer"}


_LABEL = {"maxLength": 30, "minLength": 3, "pattern": r"^(fact|episode):\d+$", "type": "string"}


def _labels_node(shown: Sequence[str]) -> dict[str, Any]:
    labels = sorted(set(shown))
    return {"enum": labels, "type": "string"} if labels else dict(_LABEL)


def _model(
    name: str, required: dict[str, Any], optional: dict[str, Any] | None = None
) -> type[BaseModel]:
    """An object with ``required`` fields, then ``optional`` ones (empty when absent)."""
    fields: dict[str, Any] = {key: (kind, ...) for key, kind in required.items()}
    fields.update({key: (kind, "") for key, kind in (optional or {}).items()})
    return create_model(name, **fields)


# -- the replies --------------------------------------------------------------------------


@functools.cache
def _episodes() -> type[BaseModel]:
    dated_item = _model(
        "DatedItem",
        {"text": _text(1, 300), "when": _text(0, 80), "message_id": _bound_integer("ids", 1)},
        {"date": _text(0, 10)},
    )
    episode = _model(
        "Episode",
        {
            "first_message_id": _bound_integer("ids", 1),
            "last_message_id": _bound_integer("ids", 1),
            "title": _text(0, 120),
            "summary": _text(1, 2000),
            "topics": _list(_text(1, 60), 8),
            "importance": _integer(1, 10),
            "dated_items": _list(dated_item, 10),
        },
    )
    return _model("Episodes", {"episodes": _list(episode, 6, 1)})


@functools.cache
def _candidates() -> type[BaseModel]:
    item = _model(
        "Fact",
        {
            "statement": _text(3, 300),
            "subject": _text(0, 60),
            "predicate": _text(0, 60),
            "source": _enum(["user_stated", "assistant_inferred"]),
            "message_ids": _list(_bound_integer("ids", 1), 10, 1),
            "confidence": Annotated[float, Strict(), Field(ge=0, le=1)],
            "importance": _integer(1, 10),
        },
        {"scope": _text(0, 30), "until": _text(0, 80)},
    )
    return _model("Facts", {"facts": _list(item, 20)})


@functools.cache
def _update() -> type[BaseModel]:
    decision = _model(
        "Decision",
        {
            "candidate": _bound_integer("candidate", 0),
            "action": _enum(["add", "reinforce", "supersede", "ignore"]),
            "fact_id": _bound_integer("fact_id", 0),
        },
        {"reason": _text(0, 300)},
    )
    decisions = Annotated[list[decision], Strict(), Field(min_length=0)]  # type: ignore[valid-type]
    return _model("Decisions", {"decisions": bound_length("decisions", decisions, 50)})


@functools.cache
def _insights() -> type[BaseModel]:
    label = bound("labels", Annotated[str, Strict()], _LABEL)
    insight = _model(
        "Insight",
        {
            "statement": _text(5, 300),
            "evidence": _list(label, 10, 1),
            "importance": _integer(1, 10),
        },
    )
    return _model("Insights", {"insights": _list(insight, 10)})


def episodes_schema(ids: Sequence[int] = ()) -> Shape:
    """The summarise step's reply; message ids limited to ``ids`` (the ones shown)."""
    return Shape.of(_episodes(), {"ids": _ids_node(ids)})


def candidates_schema(ids: Sequence[int] = ()) -> Shape:
    """The extract step's reply; evidence limited to ``ids`` (the message ids shown)."""
    return Shape.of(_candidates(), {"ids": _ids_node(ids)})


def update_schema(candidates: int = 0, fact_ids: Sequence[int] = ()) -> Shape:
    """The update step's reply: one decision per candidate numbered 0..``candidates``-1,
    naming one of ``fact_ids`` (or 0 for add and ignore)."""
    nodes: dict[str, dict[str, Any]] = {}
    if candidates:
        nodes["candidate"] = {"enum": list(range(candidates)), "type": "integer"}
        nodes["decisions"] = {"maxItems": candidates}
    if fact_ids:
        nodes["fact_id"] = {"enum": [0, *sorted(set(fact_ids))], "type": "integer"}
    return Shape.of(_update(), nodes)


def insights_schema(labels: Sequence[str] = ()) -> Shape:
    """The reflection's insights, citing only ``labels`` (the memories shown)."""
    return Shape.of(_insights(), {"labels": _labels_node(labels)})


@functools.cache
def questions_schema() -> Shape:
    """The reflection's questions."""
    return Shape.of(_model("Questions", {"questions": _list(_text(5, 200), 5, 1)}))


_GENERIC: dict[str, Callable[[], Shape]] = {
    "EPISODES": episodes_schema,
    "CANDIDATES": candidates_schema,
    "UPDATE": update_schema,
    "QUESTIONS": questions_schema,
    "INSIGHTS": insights_schema,
}


def __getattr__(name: str) -> Shape:
    """The generic replies (no ids named), built on first use: building costs start-up time."""
    if name in _GENERIC:
        return _GENERIC[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
