"""The form of one Chinese sentence: question, request, fragment or statement.

Read from its structure, without a word segmenter:

* a question ends with "？" or a question particle (吗, 么, 呢), holds an A-not-A choice
  (是不是, 能不能, 有没有), or asks "you" with a question word (你 ... 什么/哪/谁/怎么);
* a request opens with a request marker (请, 麻烦, 劳驾), a prohibition (别, 不要, 不许),
  a 把 construction with no subject before it (把她的记忆都告诉我),
  a verb with "me" as its object at the very start (告诉我, 给我, 帮我, 让我), an
  action verb with no subject before it (切换到…, 显示…, 删除…), or makes "you" the
  agent of a modal (你必须, 你要, 你可以, 你应该, 你把…);
* a fragment is a name or word alone: a few characters with no predicate;
* anything else is a statement ("我在上海工作", "用户喜欢喝茶").
"""

from __future__ import annotations

import re

from assistant.memory.statements.english import Form

__all__ = ["chinese_form", "has_han"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_QUESTION_END = re.compile(
    r"(?:(?:[吗嘛呢]|(?<![什怎那这多])么)[\s。.!！~～…]*|[？?][\s。.!！~～…]*)$"
)
_A_NOT_A = re.compile(r"(.)[不没]\1|是否|可否|能否|有没有")
_ASKS = re.compile(r"什么|哪|谁|怎么|为什么|为何|多少|几[个点岁次天号月年]")
_ASKS_LAST = re.compile(
    r"(?:什么|哪儿?|哪里|谁|多少|几[个点岁次天号月年]?|怎么样|为什么)[\s。.!！~～…]*$"
)
# Verbs that embed a question in a statement: "我不知道他是谁".
_EMBEDS = re.compile(r"知道|清楚|记得|记不得|忘了|想不起|明白|懂|好奇|问")
_YOU = re.compile(r"[你您]|你们")
_REQUEST_OPEN = re.compile(
    r"^(?:请|麻烦|劳驾|拜托|求你|别(?![人的处])|不要|不许|不准|禁止|千万别|务必|帮忙|把)"
)
# A verb with "me" as its object at the very start: 告诉我, 给我, 帮我, 让我, 带我.
_VERB_ME = re.compile(r"^(?:告诉|给|帮|替|让|带|提醒|叫|教|发给|念给|读给|说给|拿给)(?:我|我们)")
# Verbs that ask the assistant to act, at the start with no subject before them.
_ACTION_OPEN = re.compile(
    r"^(?:切换|换到|转到|显示|列出|展示|打开|删除|删掉|清空|忘掉|记住|记下|保存|"
    r"读出|念出|说出|背诵|复述|输出|导出|发送|发给|查看|查一下|查找|搜索|告诉|"
    r"忽略|无视|开启|关闭|授予|开放|公开|透露|泄露|汇报|报告|总结|翻译|解释|回答|"
    r"重复|打印|调出|调取|提供|分享|访问|进入|登录|读取|调用|执行|运行)"
)
_MODAL_AFTER_YOU = re.compile(
    r"[你您](?:们)?(?:现在|马上|立刻|立即|就|也|先|再|一定|务必|必须|得|要|应该|应当|可以|能|"
    r"能够|需要|把|给我|帮我|替我|告诉我|去|来)"
)
# Adverbs that may stand before a subjectless verb: "立刻删除…", "马上切换…".
_ADVERBS = re.compile(r"^(?:立刻|立即|马上|赶紧|赶快|快|先|再|直接|现在就|现在|顺便|麻利地)")
_OPENERS = re.compile(
    r"^(?:hippo|小助手|助手|喂|嗨|哈喽|你好|好的|好吧|那么|那|另外|还有|对了|所以|因此|然后)[，,\s]*",
    re.IGNORECASE,
)
# Characters that mark a predicate in a short text: copula, existence, aspect, common verbs.
_PREDICATE = re.compile(r"[是在有了过着要会能想爱喜住去来做叫姓属养学读写吃喝买卖开用当]")


def has_han(text: str) -> bool:
    """Whether ``text`` has Chinese characters."""
    return _HAN.search(text) is not None


def chinese_form(sentence: str) -> Form:
    """What kind of sentence ``sentence`` is (see the module's doc)."""
    text = sentence.strip()
    if _QUESTION_END.search(text) or _A_NOT_A.search(text):
        return "question"
    if _YOU.search(text) and _ASKS.search(text):
        return "question"
    if _ASKS_LAST.search(text) and not _EMBEDS.search(text):
        return "question"  # "我儿子最近在忙什么": a question word last, no "I don't know" before
    clauses = [
        _ADVERBS.sub("", _OPENERS.sub("", c.strip())) for c in re.split(r"[，,；;：:]", text)
    ]
    if any(_requests(c) for c in clauses if c):
        return "request"
    han = len(_HAN.findall(text))
    if han <= 2 or (han <= 4 and not _PREDICATE.search(text)):
        return "fragment"
    return "statement"


def _requests(clause: str) -> bool:
    if _REQUEST_OPEN.match(clause) or _VERB_ME.match(clause) or _ACTION_OPEN.match(clause):
        return True
    return _MODAL_AFTER_YOU.search(clause) is not None
