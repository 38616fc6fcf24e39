"""The correction model on its own: how a newer statement bears on an older one.

Each row is a kind of correction people make (moved, new job, new dose, another class
time, a breakup, a flipped habit), in English and in Chinese, or a statement that must
not count as one (it can hold beside the old, or is not about the user).
"""

from __future__ import annotations

import pytest

from assistant.memory.facts.corrections import judge

CASES = [
    ("My new address is 5 Rua Augusta, Lisbon", "I live in Porto", "corrects"),
    ("We split up last month", "My girlfriend is Sam", "corrects"),
    ("I'm no longer with Sam", "I am dating Sam", "disputes"),
    ("我已经不在腾讯了", "我在腾讯上班", "corrects"),
    ("我们分手了", "我和小林在一起了", "corrects"),
    ("My class is on Thursdays now", "My yoga class is on Tuesdays", "corrects"),
    ("I got a new job at Stripe", "I work at Google", "corrects"),
    ("We moved to Berlin", "I live in Porto", "corrects"),
    ("I live in Porto", "I live in Porto", "same"),
    ("I live in Porto now", "I live in Porto", "same"),
    ("I moved to Lisbon last month, I live in Lisbon now", "I live in Porto", "corrects"),
    ("I moved to Lisbon", "I live in Porto", "corrects"),
    ("I live in Lisbon", "The user lives in Porto", "corrects"),
    ("I started a new job at Microsoft", "I work at Google", "corrects"),
    ("I quit my job", "I work at Google", "corrects"),
    ("Sam and I broke up", "I am dating Sam", "corrects"),
    ("I broke up with Sam", "My girlfriend is Sam", "corrects"),
    ("I broke up with Sam", "I am dating Alex", "unrelated"),
    ("My yoga class moved to Thursdays at 7pm", "My yoga class is on Tuesdays at 6pm", "corrects"),
    ("Yoga class is on Thursdays now", "My yoga class is on Tuesdays", "corrects"),
    ("I now take 20mg of lisinopril", "I take 10mg of lisinopril daily", "corrects"),
    ("My doctor raised my lisinopril dose to 20mg", "I take 10mg of lisinopril daily", "corrects"),
    ("I switched from lisinopril to losartan", "I take lisinopril", "corrects"),
    ("I now take losartan", "I take lisinopril", "disputes"),
    (
        "I have a dentist appointment on Friday",
        "I have a dentist appointment on Monday",
        "disputes",
    ),
    ("I don't eat meat anymore", "I eat meat", "corrects"),
    ("I like rock", "I like jazz", "unrelated"),
    ("I love Lisbon's food", "I live in Porto", "unrelated"),
    ("My sister lives in Lisbon", "I live in Porto", "unrelated"),
    ("Where do I live?", "I live in Porto", "unrelated"),
    ("I live in Lisbon and I work at Google", "I live in Porto", "corrects"),
    ("My favourite colour is green", "My favourite colour is blue", "disputes"),
    ("My son is 7", "My daughter is 5", "unrelated"),
    ("我搬到里斯本了，现在住在里斯本", "我住在波尔图", "corrects"),
    ("我住在波尔图", "我住在波尔图", "same"),
    ("我现在在字节跳动上班", "我在腾讯上班", "corrects"),
    ("我换工作了", "我在腾讯上班", "corrects"),
    ("我和小林分手了", "我女朋友是小林", "corrects"),
    ("瑜伽课改到周四了", "我的瑜伽课在周二晚上", "corrects"),
    ("医生把氨氯地平改成每天20毫克", "我每天吃10毫克氨氯地平", "corrects"),
    ("我不再吃肉了", "我吃肉", "corrects"),
    ("我妈住在杭州", "我住在波尔图", "unrelated"),
    ("我喜欢爵士乐", "我住在波尔图", "unrelated"),
    ("Thanks, that helps!", "I live in Porto", "unrelated"),
    ("I'm not vegetarian anymore", "I am vegetarian", "corrects"),
    ("I used to live in Porto", "I live in Porto", "corrects"),
    ("The user now takes losartan", "I take lisinopril every morning", "disputes"),
    ("The user eats meat", "I eat meat", "same"),
    ("My yoga class is great", "My yoga class is on Tuesdays", "unrelated"),
    ("I'm seeing a doctor tomorrow", "I am dating Sam", "unrelated"),
    ("I work at Google on the search team", "I work at Google", "unrelated"),
    ("I moved the meeting to Friday", "I live in Porto", "unrelated"),
    ("I went to Lisbon last week", "I live in Porto", "unrelated"),
    ("My favourite colour is green now", "My favourite colour is blue", "corrects"),
    ("I left my keys at work", "I work at Google", "unrelated"),
    ("I'm visiting Lisbon this week", "I live in Porto", "unrelated"),
]


@pytest.mark.parametrize(("new", "old", "verdict"), CASES)
def test_a_statement_bears_on_an_older_one_as_it_means(new, old, verdict):
    assert judge(new, old) == verdict
