"""Recognising a message that quotes text from elsewhere: an email, a web page, a chat log.

Told by structure, not by content: mail headers and "wrote:" lines, ``>`` quoting, HTML
tags, speaker-prefixed or timestamped log lines, web page boilerplate. What a pasted text
says is not the user's own word, so what sleep draws from it waits for review.
"""

from __future__ import annotations

import re

__all__ = ["looks_pasted"]

_SCANNED = 20_000
_HEADER = re.compile(
    r"^\s*(?:from|to|cc|bcc|subject|date|sent|reply-to|发件人|收件人|主题|日期|发送时间|抄送)"
    r"\s*[:：]\s*\S",
    re.IGNORECASE | re.MULTILINE,
)
_MAIL_MARK = re.compile(
    r"^\s*-{2,}\s*(?:original message|forwarded message)|^\s*on .{3,100} wrote:\s*$"
    r"|在.{2,60}写道\s*[:：]|^\s*-{2,}\s*(?:原始邮件|转发的邮件)",
    re.IGNORECASE | re.MULTILINE,
)
_QUOTED = re.compile(r"^\s*>", re.MULTILINE)
_HTML_TAG = re.compile(
    r"</?(html|head|body|div|p|span|a|br|table|tr|td|ul|ol|li|h[1-6]|meta|script|style|font"
    r"|img|section|article|nav|header|footer|button|form|input)\b[^>]*>",
    re.IGNORECASE,
)
_STAMPED = re.compile(
    r"^\s*[\[(]?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?[\])]?"
    r"\s*[-–]?\s*<?[^:：\n<>]{1,30}>?\s*[:：]",
    re.IGNORECASE | re.MULTILINE,
)
_SPEAKER = re.compile(r"^\s*<?([^\s:：<>][^:：\n<>]{0,23})>?\s*[:：]\s*\S", re.MULTILINE)
_IRC = re.compile(r"^\s*<[\w.\-]{1,24}>\s+\S", re.MULTILINE)
_BOILERPLATE = re.compile(
    r"skip to (?:main )?content|all rights reserved|©|\bcookies?\b|privacy policy"
    r"|terms of (?:use|service)|\bsubscribe\b|share this|read more|sign in|log in"
    r"|版权所有|隐私政策|用户协议|登录|注册",
    re.IGNORECASE,
)


def _chat_log(text: str) -> bool:
    if len(_STAMPED.findall(text)) >= 2 or len(_IRC.findall(text)) >= 2:
        return True
    speakers = [s.strip().casefold() for s in _SPEAKER.findall(text)]
    return len(speakers) >= 3 and len(set(speakers)) >= 2


def looks_pasted(text: str) -> str:
    """Why ``text`` looks quoted from elsewhere ("an email", ...), or "" if it does not."""
    text = text[:_SCANNED]  # structure shows at the start; a long text's tail adds nothing
    if len(_HEADER.findall(text)) >= 2 or _MAIL_MARK.search(text):
        return "an email"
    if len(_QUOTED.findall(text)) >= 2:
        return "quoted text"
    if len({m.group(1).lower() for m in _HTML_TAG.finditer(text)}) >= 2:
        return "a web page"
    if _chat_log(text):
        return "a chat log"
    if len({m.group(0).casefold() for m in _BOILERPLATE.finditer(text)}) >= 2:
        return "a web page"
    return ""
