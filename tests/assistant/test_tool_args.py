"""The model's tool calls are checked by the tools' pydantic models, forgivingly."""

from __future__ import annotations

import pytest

from assistant.memory.tool_args import TOOL_SPECS, ArgumentError, validated


def test_each_tool_offers_the_parameters_its_model_describes():
    offered = {s["function"]["name"]: s["function"]["parameters"] for s in TOOL_SPECS}
    assert offered["remember_fact"] == {
        "type": "object",
        "properties": {
            "statement": {"type": "string"},
            "scope": {"type": "string", "description": "e.g. work, health"},
            "importance": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["statement"],
    }
    assert offered["core_memory_append"]["properties"]["label"]["enum"] == ["human", "persona"]
    assert offered["recall_search"]["required"] == ["query"]


@pytest.mark.parametrize(
    ("name", "arguments", "checked"),
    [
        ("recall_search", {"query": 5, "stray": 1}, {"query": "5"}),
        (
            "remember_fact",
            {"statement": "s", "importance": "7"},
            {"statement": "s", "importance": 7},
        ),
        (
            "remember_fact",
            {"statement": "s", "importance": 70},
            {"statement": "s", "importance": 70},
        ),
        ("forget_fact", {"fact_id": 3.7}, {"fact_id": 3}),
        ("archival_insert", {"content": True}, {"content": "True"}),
    ],
)
def test_what_has_one_clear_reading_is_read_so(name, arguments, checked):
    assert validated(name, arguments) == checked


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        ("nope", {}, "There is no tool 'nope'. Available: core_memory_append, "),
        ("recall_search", [], "recall_search takes a JSON object of arguments."),
        ("recall_search", {"query": ""}, "recall_search needs 'query'."),
        ("forget_fact", {"fact_id": "abc"}, "forget_fact: 'fact_id' must be a whole number."),
        (
            "core_memory_append",
            {"label": "x", "content": "c"},
            "must be one of ['human', 'persona']",
        ),
        (
            "remember_fact",
            {"statement": ["a"]},
            "remember_fact: 'statement' must be text, not a list.",
        ),
        # The first problem in the order the model wrote its arguments is the one told.
        ("remember_fact", {"importance": "x", "statement": ["a"]}, "'importance' must be a whole"),
    ],
)
def test_what_must_be_corrected_is_told_in_words_the_model_can_act_on(name, arguments, problem):
    with pytest.raises(ArgumentError) as caught:
        validated(name, arguments)
    assert problem in str(caught.value)
