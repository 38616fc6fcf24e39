"""Write-time importance: filler < chit-chat < facts about the user's life."""

from __future__ import annotations

import pytest

from assistant.memory.importance import RATED_CHARS, rate_importance

FILLER = ["hi", "Thanks!", "ok", "lol", "thank you so much!", "好的", "谢谢", "哈哈", "嗯嗯"]
CHIT_CHAT = [
    "What a lovely day, the weather is nice",
    "Did you watch the game?",
    "今天天气不错",
    "你吃饭了吗？",
]
LIFE_FACTS = [
    "Remember that my sister Anna is allergic to peanuts",
    "I have a dentist appointment on Friday at 3:30",
    "I decided to quit my job in March",
    "我下周五要去北京出差，住在朝阳区",
    "记住我对花生过敏",
    "我妈妈下个月3号做手术",
]


@pytest.mark.parametrize("text", FILLER)
def test_greetings_thanks_and_filler_rate_one_or_two(text):
    assert 1 <= rate_importance(text) <= 2


@pytest.mark.parametrize("text", CHIT_CHAT)
def test_chit_chat_rates_about_three_or_four(text):
    assert 3 <= rate_importance(text) <= 4


@pytest.mark.parametrize("text", LIFE_FACTS)
def test_facts_about_the_users_life_rate_six_or_more(text):
    assert 6 <= rate_importance(text) <= 10


@pytest.mark.parametrize(
    ("greeting", "chat", "fact"),
    [
        ("hello!", "The weather is nice", "My daughter starts school on September 3"),
        ("你好", "今天天气不错", "我女儿9月3号开学"),
    ],
)
def test_greeting_rates_below_chit_chat_below_a_life_fact(greeting, chat, fact):
    assert rate_importance(greeting) < rate_importance(chat) < rate_importance(fact)


def test_asking_to_remember_rates_above_the_same_fact_unasked():
    plain = rate_importance("my locker code is 4711")
    assert rate_importance("remember that my locker code is 4711") > plain
    assert rate_importance("记住我的储物柜密码是4711") > rate_importance("我的储物柜密码是4711")


def test_the_assistants_first_person_is_not_a_fact_about_the_user():
    text = "I have a lot of ideas for my answer"
    assert rate_importance(text, role="assistant") < rate_importance(text, role="user")


def test_empty_or_punctuation_only_text_rates_lowest():
    assert rate_importance("") == 1
    assert rate_importance("?!…") == 1


def test_a_pasted_megabyte_is_rated_by_its_first_pages():
    # Rating it whole cost ~1 s of CPU a megabyte; its beginning decides, as it would.
    report = "".join(f"line {n}: the quarterly numbers look fine\n" for n in range(26_000))
    assert rate_importance(report) == rate_importance(report[:RATED_CHARS])
    late = "x " * RATED_CHARS + "Remember that my sister Anna is allergic to peanuts"
    assert rate_importance(late) == rate_importance("x " * RATED_CHARS) < 6
    assert rate_importance(LIFE_FACTS[0] + " x" * RATED_CHARS) >= 6
