"""Reading a small model's JSON: each clear repair, and what stays an error."""

from __future__ import annotations

import json

import pytest

from assistant.sleep.repair import read_reply, salvage
from assistant.sleep.schemas import candidates_schema, episodes_schema, update_schema

ITEM = {
    "statement": "The user lives in Lyon",
    "subject": "user",
    "predicate": "lives in",
    "source": "user_stated",
    "message_ids": [3],
    "confidence": 0.9,
    "importance": 6,
}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 2, {"b": 3}, {"b"', {"a": [1, 2, {"b": 3}]}),
        ('{"a": "x", "b": "cut', {"a": "x"}),
        ('[{"a": 1}, {"a": 2', [{"a": 1}]),
        ('{"a": "brace } in a string", "b', {"a": "brace } in a string"}),
    ],
)
def test_truncated_json_keeps_its_whole_parts(text, value):
    assert salvage(text) == value


def test_nothing_whole_is_nothing():
    assert salvage('{"a') is None and salvage("no json") is None


def test_a_clean_reply_needs_no_repair():
    reading = read_reply(json.dumps({"facts": [ITEM]}), candidates_schema([3]))
    assert reading.value == {"facts": [ITEM]} and reading.notes == [] and reading.errors == []


def test_scales_are_clamped_and_ids_are_not():
    item = {**ITEM, "importance": 20, "confidence": 1.5, "message_ids": [3, 425180796]}
    reading = read_reply(json.dumps({"facts": [item]}), candidates_schema([3]))
    assert reading.value is None
    assert "$.facts[0].message_ids[1] must be one of [3]" in reading.errors


def test_a_number_written_as_text_is_read_as_a_number():
    item = {**ITEM, "importance": "7", "message_ids": ["[id 3]"], "source": "User Stated"}
    reading = read_reply(json.dumps({"facts": [item]}), candidates_schema([3]))
    fact = reading.value["facts"][0]
    assert (fact["importance"], fact["message_ids"], fact["source"]) == (7, [3], "user_stated")


def test_a_missing_top_level_list_is_an_error_not_an_empty_answer():
    assert read_reply("{}", candidates_schema([3])).errors == ["$.facts is missing"]


def test_all_items_broken_is_an_error_not_an_empty_answer():
    broken = {"statement": "D1:1", "evidence": ["fact", "D1:2"]}
    reading = read_reply(json.dumps({"facts": [broken, broken]}), candidates_schema([3]))
    assert reading.value is None and reading.errors


def test_update_decisions_name_only_the_candidates_and_facts_shown():
    schema = update_schema(2, [11, 12])
    props = schema["properties"]["decisions"]["items"]["properties"]
    assert props["candidate"]["enum"] == [0, 1] and props["fact_id"]["enum"] == [0, 11, 12]
    wrong = {"decisions": [{"candidate": 5, "action": "add", "fact_id": 0}]}
    assert read_reply(json.dumps(wrong), schema).errors  # never clamped to candidate 1


def test_a_missing_field_in_an_episode_is_filled_only_where_empty_is_allowed():
    part = {"first_message_id": 1, "last_message_id": 2, "summary": "Talked.", "importance": 5}
    reading = read_reply(json.dumps({"episodes": [part]}), episodes_schema([1, 2]))
    episode = reading.value["episodes"][0]
    assert episode["title"] == "" and episode["topics"] == [] and episode["dated_items"] == []
    no_summary = {k: v for k, v in part.items() if k != "summary"}
    assert read_reply(json.dumps({"episodes": [no_summary]}), episodes_schema([1, 2])).errors


@pytest.mark.parametrize(
    "shape",
    [
        lambda item: [item],
        lambda item: {"items": [item]},
        lambda item: {"data": {"facts": [item]}},
        lambda item: {"facts": item},
        lambda item: item,
        lambda item: json.dumps({"facts": [item]}),
    ],
    ids=["bare list", "other key", "wrapped", "lone item", "item alone", "string of JSON"],
)
def test_reasonable_shapes_are_read_where_the_meaning_is_clear(shape):
    reading = read_reply(json.dumps(shape(ITEM)), candidates_schema([3]))
    assert reading.value == {"facts": [ITEM]} and reading.notes, reading.errors


def test_a_broken_dated_item_costs_only_itself_not_its_episode():
    dated = [
        {"text": "Dentist on Friday", "when": "Friday", "message_id": 1},
        {"text": "Cut off", "when": "next"},  # the JSON was cut here, and completed
    ]
    part = {"first_message_id": 1, "last_message_id": 2, "title": "", "summary": "Plans.",
            "topics": [], "importance": 5, "dated_items": dated}  # fmt: skip
    reading = read_reply(json.dumps({"episodes": [part]}), episodes_schema([1, 2]))
    assert reading.value["episodes"][0]["dated_items"] == dated[:1] and reading.dropped == 1
