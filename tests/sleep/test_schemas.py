"""Replies are checked against the same JSON schemas sent as Ollama's ``format``."""

from __future__ import annotations

import json

from assistant.sleep.schemas import (
    CANDIDATES,
    EPISODES,
    INSIGHTS,
    UPDATE,
    candidates_schema,
    episodes_schema,
    schema_errors,
    update_schema,
)
from assistant.sleep.settings import SleepSettings


def test_a_valid_reply_has_no_errors():
    reply = {
        "facts": [
            {
                "statement": "The user runs",
                "subject": "user",
                "predicate": "does",
                "source": "user_stated",
                "message_ids": [3],
                "confidence": 0.9,
                "importance": 5,
            }
        ]
    }
    assert schema_errors(reply, CANDIDATES) == []


def test_each_kind_of_mistake_is_named_with_its_path():
    assert schema_errors({}, EPISODES) == ["$.episodes is missing"]
    assert schema_errors({"episodes": []}, EPISODES) == ["$.episodes must have 1-6 items"]
    bad = {"decisions": [{"candidate": True, "action": "delete", "fact_id": 1.5}]}
    assert schema_errors(bad, UPDATE) == [
        "$.decisions[0].candidate must be integer, not bool",
        "$.decisions[0].action must be one of ['add', 'reinforce', 'supersede', 'ignore']",
        "$.decisions[0].fact_id must be integer, not float",
    ]
    wrong = {"insights": [{"statement": "Deep", "evidence": ["message:1"], "importance": 11}]}
    assert schema_errors(wrong, INSIGHTS) == [
        "$.insights[0].statement must be 5-300 long",
        "$.insights[0].evidence[0] must match ^(fact|episode):\\d+$",
        "$.insights[0].importance must be <= 10",
    ]


def test_the_format_sent_is_the_models_schema_naming_only_the_ids_shown():
    schema = candidates_schema([5, 3]).json_schema
    item = schema["properties"]["facts"]["items"]
    assert item["properties"]["message_ids"]["items"] == {"enum": [3, 5], "type": "integer"}
    assert item["required"][:3] == ["statement", "subject", "predicate"]
    assert "scope" not in item["required"] and "$ref" not in json.dumps(schema)
    json.dumps(schema)  # sent as is


def test_a_whole_float_is_an_integer_but_a_bool_is_never_an_id():
    schema = update_schema(2, [11])
    fine = {"decisions": [{"candidate": 1.0, "action": "add", "fact_id": 0}]}
    assert schema_errors(fine, schema) == []
    one = {"decisions": [{"candidate": True, "action": "add", "fact_id": 11}]}
    assert schema_errors(one, schema) == ["$.decisions[0].candidate must be integer, not bool"]
    assert schema_errors({"decisions": [{"candidate": 0}]}, schema) == [
        "$.decisions[0].action is missing",
        "$.decisions[0].fact_id is missing",
    ]


def test_settings_come_from_the_sleep_table_of_config_toml():
    settings = SleepSettings.from_mapping({"at": "02:30", "max_llm_calls": 50})
    assert (settings.at_time.hour, settings.at_time.minute, settings.max_llm_calls) == (2, 30, 50)


def test_a_bad_setting_says_which_and_why():
    import pytest

    from assistant.errors import ConfigError

    with pytest.raises(ConfigError, match="no setting 'nightly'"):
        SleepSettings.from_mapping({"nightly": True})
    with pytest.raises(ConfigError, match='like "03:00"'):
        SleepSettings.from_mapping({"at": "3am"})
    with pytest.raises(ConfigError, match="true or false"):
        SleepSettings.from_mapping({"auto_activate": "yes"})


def test_each_call_checks_the_ids_it_showed_not_another_calls():
    def reply(ids):
        return {"episodes": [{"first_message_id": ids[0], "last_message_id": ids[-1],
                              "summary": "They talked.", "topics": [], "importance": 5,
                              "title": "", "dated_items": []}]}  # fmt: skip

    first, second = episodes_schema([3, 4]), episodes_schema([5])
    assert schema_errors(reply([3, 4]), first) == []
    assert schema_errors(reply([5]), first) == [
        "$.episodes[0].first_message_id must be one of [3, 4]",
        "$.episodes[0].last_message_id must be one of [3, 4]",
    ]
    item = second["properties"]["episodes"]["items"]  # a part, as the repairs read it
    assert item["properties"]["first_message_id"] == {"enum": [5], "type": "integer"}
    assert item.errors(reply([3, 4])["episodes"][0]) == [
        "$.first_message_id must be one of [5]",
        "$.last_message_id must be one of [5]",
    ]
    assert schema_errors(reply([5]), second) == []
    generic = EPISODES["properties"]["episodes"]["items"]["properties"]["first_message_id"]
    assert generic == {"minimum": 1, "type": "integer"}


def test_the_update_reply_is_bounded_by_the_candidates_asked():
    schema = update_schema(2, [11])
    assert schema.json_schema["properties"]["decisions"]["maxItems"] == 2
    three = {"decisions": [{"candidate": 0, "action": "add", "fact_id": 0}] * 3}
    assert schema_errors(three, schema) == ["$.decisions must have 0-2 items"]
    assert schema_errors(three, UPDATE) == []  # the generic reply takes up to 50
    assert UPDATE["properties"]["decisions"]["maxItems"] == 50
