"""Replies are checked against the same JSON schemas sent as Ollama's ``format``."""

from __future__ import annotations

from assistant.sleep.schemas import CANDIDATES, EPISODES, INSIGHTS, UPDATE, schema_errors
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
