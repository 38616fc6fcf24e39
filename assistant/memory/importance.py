"""A write-time importance guess for a message or event: cheap, no model, English and Chinese.

Greetings, thanks and filler rate 1-2, ordinary chit-chat about 3, and statements
about the user's life (plans with dates, preferences, health, relationships,
decisions, numbers, names, "remember that ...") 6-9. The nightly sleep job refines
these with the model; this only has to order things sensibly so that retrieval and
reflection thresholds work before the first sleep. 10 is left to the sleep job.
"""

from __future__ import annotations

import re

__all__ = ["MAX_HEURISTIC", "RATED_CHARS", "rate_importance"]

MAX_HEURISTIC = 9.0
_BASE = 3.0
# Only a text's beginning is rated: each pattern below scans what it is given, and a
# pasted megabyte took ~1 s of CPU to rate whole; its first pages tell as much.
RATED_CHARS = 16_000

# Whole-message filler: if nothing else is left once these are removed, it is noise.
_FILLER = re.compile(
    r"\b(?:hi|hello|hey|yo|thanks|thank you|thx|ty|cheers|ok|okay|k|kk|lol|lmao|haha+|hah|"
    r"hehe|cool|nice|great|awesome|sure|yes|yeah|yep|no|nope|nah|bye|goodbye|good night|"
    r"good morning|good evening|got it|np|no problem|alright|fine|wow|oh|ah|hmm+|"
    r"so much|very much|a lot|you|guys|all|there|again|anyway|indeed|sounds good)\b"
    r"|好的|好滴|好吧|好|谢谢你|谢谢|多谢|感谢|哈+|呵+|嘿|嗯+|哦+|噢|你好|您好|再见|拜拜|晚安|"
    r"早上好|早安|收到|行|可以|没问题|不客气|知道了|明白|对|是的|好嘞|啦|了|呀|啊|吧|呢|哇"
)
_NOT_TEXT = re.compile(r"[\W_]+", re.UNICODE)

# (weight, English pattern with word boundaries, Chinese substrings)
_SIGNALS: tuple[tuple[float, str, str], ...] = (
    (
        4.0,
        r"remember|don'?t forget|do not forget|note that|keep in mind|make a note",
        "记住|记得|别忘|不要忘|提醒我|记一下",
    ),
    (
        2.0,
        r"(?:i|we) (?:like|love|hate|prefer|enjoy|can'?t stand)|favou?rite|allergic|vegetarian|"
        r"vegan",
        "喜欢|讨厌|不爱吃|偏好|最爱|过敏|吃素",
    ),
    (
        2.0,
        r"doctor|hospital|clinic|diagnos\w*|medication|medicine|surgery|pregnan\w*|sick|ill|"
        r"therapy|blood pressure|diabetes|injur\w*",
        "医院|医生|看病|生病|吃药|手术|怀孕|体检|血压|糖尿病|受伤|发烧",
    ),
    (
        1.5,
        r"wife|husband|partner|son|daughter|kids?|children|mom|mum|mother|dad|father|sister|"
        r"brother|friend|boss|colleague|girlfriend|boyfriend|parents|grandma|grandpa",
        "妻子|老婆|老公|丈夫|儿子|女儿|孩子|妈妈|爸爸|母亲|父亲|姐姐|妹妹|哥哥|弟弟|朋友|老板|"
        "同事|女朋友|男朋友|父母|奶奶|爷爷",
    ),
    (
        1.5,
        r"decided|going to|plan(?:ning|ned)?|will|moving|move to|start(?:ing)?|quit|promoted|"
        r"married|engaged|hired|fired|deadline|appointment|interview|birthday|anniversary",
        "决定|打算|计划|准备|要去|搬家|辞职|结婚|订婚|升职|面试|截止|预约|生日|纪念日",
    ),
    (0.5, r"today|tonight|yesterday|this (?:morning|evening)", "今天|今晚|昨天|刚才"),
    (
        1.5,
        r"tomorrow|next (?:week|month|year)|monday|tuesday|wednesday|"
        r"thursday|friday|saturday|sunday|january|february|march|april|june|july|august|"
        r"september|october|november|december|\d{1,2}(?:st|nd|rd|th)|\d{1,2}[:/]\d{2}",
        "明天|后天|下周|下个月|明年|周[一二三四五六日末]|星期|\\d+月|\\d+号|\\d+日|点钟",
    ),
    (
        1.5,
        r"i am|i'm|my|i have|i've|i live|i work|i was born|i used to|mine",
        "我是|我的|我在|我住|我有|我家|我们家|我叫",
    ),
)
_COMPILED = tuple(
    (weight, re.compile(rf"\b(?:{english})\b", re.IGNORECASE), re.compile(chinese))
    for weight, english, chinese in _SIGNALS
)
_FIRST_PERSON = _COMPILED[-1]
_DIGIT = re.compile(r"\d")
_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _is_filler(text: str) -> bool:
    rest = _FILLER.sub(" ", text.lower())
    return not _NOT_TEXT.sub("", rest)


def _signal_points(text: str, role: str) -> float:
    points = 0.0
    for signal in _COMPILED:
        if role != "user" and signal is _FIRST_PERSON:
            continue  # the assistant's "I" and "my" are not facts about the user
        weight, english, chinese = signal
        if english.search(text) or chinese.search(text):
            points += weight
    if _DIGIT.search(text):
        points += 0.5
    if _NAME.search(text):
        points += 0.5
    return points


def _length_points(text: str) -> float:
    words = len(text.split()) + len(_CJK.findall(text)) // 2
    return 0.5 if words > 12 else 0.0


def rate_importance(text: str, role: str = "user") -> float:
    """Guess how much ``text`` matters to remember, on Hippo's 1-10 scale.

    Args:
        text: the message or event text (its first `RATED_CHARS` characters count).
        role: who said it; the assistant's and tools' words rate a point lower, and
            their first-person statements are not taken as facts about the user.

    Returns:
        A score in [1, 9]: 1-2 for filler, about 3 for chit-chat, 6-9 for personal facts.
    """
    stripped = text.strip()[:RATED_CHARS]
    if not _NOT_TEXT.sub("", stripped):
        return 1.0
    if _is_filler(stripped):
        return 1.0 if len(stripped) <= 4 else 1.5
    score = _BASE + _signal_points(stripped, role) + _length_points(stripped)
    if role != "user":
        score -= 1.0
    return max(1.0, min(MAX_HEURISTIC, score))
