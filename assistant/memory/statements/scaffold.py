"""Transcript scaffolding: what Hippo wrote around a message, which is never part of a fact.

Sleep shows the model lines like ``[id 12] 2026-11-25 Wed 10:00 user (Gina): ...``; a
weak model copies that frame into a statement ("2023-01-29 Sun 14:48 user (Gina)
congratulates ...", subject "2022-01-23 Sun 14:29 | Joanna"). `strip_scaffolding` takes it
out and keeps the speaker's name where one was given.
"""

from __future__ import annotations

import re

__all__ = ["strip_scaffolding"]

_DAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*"
# A message id, anywhere: Hippo's label, never words anyone said.
_ID = re.compile(r"\[\s*id\s*\d+\s*\]", re.IGNORECASE)
# A transcript's time stamp at the start, with what separates it from the rest.
_STAMP = re.compile(
    rf"^\s*\d{{4}}-\d{{2}}-\d{{2}}(?:[ T]+{_DAY})?(?:[ T]+\d{{1,2}}:\d{{2}}(?::\d{{2}})?)?"
    r"\s*[|:,\-–—]?\s*",
    re.IGNORECASE,
)
# A role label at the start: "user:", "assistant:", "user (Gina):", "user (Gina) says:".
# ("SYSTEM:" is no label of Hippo's transcripts: it is an injection's, and stays to be seen.)
_ROLE = re.compile(
    r"^\s*(?:user|assistant)(?:\s*\((?:pasted text[^)]*|(?P<name>[^()]{1,40}))\))?"
    r"(?P<colon>\s*[:：])?\s*",
    re.IGNORECASE,
)
_SAYS = re.compile(r"^(?:says|said|writes|wrote)\s*[:：]\s*", re.IGNORECASE)


def strip_scaffolding(text: str) -> str:
    """``text`` without transcript ids, a leading time stamp or a leading role label.

    ``user (Gina) congratulates X`` becomes ``Gina congratulates X``; ``user (Gina) says:
    I moved`` becomes ``I moved``; a bare ``user:`` or ``assistant:`` goes.
    """
    text = " ".join(_ID.sub(" ", text).split())
    previous = None
    while previous != text:  # "[id 3] 2023-01-29 Sun 14:48 user (Gina): ..." has them all
        previous = text
        text = _STAMP.sub("", text, count=1).strip()
        text = _role_stripped(text)
    return text


def _role_stripped(text: str) -> str:
    found = _ROLE.match(text)
    if found is None or found.end() == 0:
        return text
    rest = text[found.end() :]
    name = (found.group("name") or "").strip()
    if not found.group("colon") and not name:
        return text  # "User experience is ..." is not a label
    said = _SAYS.match(rest)
    if said:  # "user (Gina) says: I moved": the words are hers
        return rest[said.end() :].strip()
    if name and not found.group("colon"):
        return f"{name} {rest}".strip()
    return rest.strip()
