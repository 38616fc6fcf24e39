"""Fold text to what a model reads, so that disguises do not hide an instruction.

Terminal escape sequences (ANSI CSI, OSC, DCS...) and other control characters are
removed; so are format characters (zero-width spaces and joiners, bidi controls, soft
hyphens, variation selectors), which split words for the eye of a regex but not for a
model. Unicode tag characters (invisible ASCII) are decoded. NFKC folds full-width and
other compatibility forms, accents are dropped, Latin look-alikes from Cyrillic and Greek
become Latin, and common traditional Chinese characters become simplified ones.

`variants` adds two readings a model also understands: letters spaced out
("I G N O R E") joined back, and digits standing for letters ("1gn0re") read as letters.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold", "hidden_tag_text", "strip_escapes", "variants"]

# ESC-introduced sequences: CSI, OSC/DCS/SOS/PM/APC strings (ended by BEL or ST), then
# two-character escapes; and their 8-bit C1 forms.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Unicode's format characters (category Cf): zero-width, bidi, soft hyphen, tags...
_FORMAT = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]"
)
_TAGS = re.compile(r"[\U000e0000-\U000e007f]+")
_SPACES = re.compile(r"[ \t\f\v]+")
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝвкмнтɡαεικνορτυχϲᴀ",
    "aeopcyxijsdhlqwbkmhtgaeikvoptuxca",
)
# Traditional characters that the instruction patterns meet, to their simplified forms.
_TRADITIONAL = str.maketrans(
    "記憶寫蓋開發員統戶訴這讀請將長檔設則規視無讓從現當認為資訊錄儲務須應該說話覽閱給們對關機"
    "帳號碼維護權時間後頁條體單內親囑嗎麼樣幫個來與裡變處執標準稱聽註冊腦導適況協議",
    "记忆写盖开发员统户诉这读请将长档设则规视无让从现当认为资讯录储务须应该说话览阅给们对关机"
    "帐号码维护权时间后页条体单内亲嘱吗么样帮个来与里变处执标准称听注册脑导适况协议",
)
# A run of single letters with separators between them ("I G N O R E", "i.g.n.o.r.e").
_SPACED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ .\-_*·/|]{1,3}[^\W\d_](?![^\W\d_]))+")
_LEET = str.maketrans("013457@$", "oieastas")
_LEET_WORD = re.compile(r"[\w@$]*[a-z][\w@$]*")


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tabs, newlines kept)."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def hidden_tag_text(text: str) -> str:
    """The ASCII hidden in Unicode tag characters (invisible on screen, read by models)."""
    return " ".join(
        "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)
        for run in _TAGS.findall(text)
    ).strip()


def fold(text: str) -> str:
    """The text as a model reads it, lower-cased, for matching instruction patterns."""
    return _SPACES.sub(" ", _fold_keeping_spaces(text))


def _fold_keeping_spaces(text: str) -> str:
    text = strip_escapes(text)
    if text.isascii():  # nothing below changes ASCII but the case
        return text.lower()
    text = _FORMAT.sub("", text)
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.translate(_CONFUSABLES).translate(_TRADITIONAL)


def _join_spaced(match: re.Match[str]) -> str:
    run = match.group(0)
    letters = re.findall(r"[^\W\d_]", run)
    if len(letters) < 4:
        return run
    gaps = re.findall(r"[ .\-_*·/|]+", run)
    join = min(len(g) for g in gaps)
    out = [letters[0]]
    for gap, letter in zip(gaps, letters[1:], strict=True):
        out.append(letter if len(gap) == join else " " + letter)
    return "".join(out)


def _unleet(match: re.Match[str]) -> str:
    word = match.group(0)
    return word.translate(_LEET) if re.search(r"[0-9@$]", word) else word


def variants(text: str) -> list[str]:
    """The folded text, and its readings with spaced letters joined and digits as letters."""
    spaced = _fold_keeping_spaces(text)
    folded = _SPACES.sub(" ", spaced)
    out = [folded]
    joined = _SPACES.sub(" ", _SPACED.sub(_join_spaced, spaced))
    if joined != folded:
        out.append(joined)
    unleet = _LEET_WORD.sub(_unleet, folded)
    if unleet != folded:
        out.append(unleet)
    hidden = hidden_tag_text(text)
    if hidden:
        out.append(fold(hidden))
    return out
