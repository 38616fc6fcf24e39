"""Cheap token estimates: no tokenizer download, good enough for budgets."""

from __future__ import annotations

import re

__all__ = ["estimate_tokens"]

# Han, kana, hangul: models spend about one token per character on these scripts.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens ``text`` costs a typical chat model.

    About four characters per token for alphabetic scripts, one per CJK character.
    """
    if not text:
        return 0
    # Counted by what removing them leaves: a list of every CJK character of a
    # megabytes-long message would take several times its size.
    cjk = len(text) - len(_CJK.sub("", text))
    return cjk + (len(text) - cjk + 3) // 4
