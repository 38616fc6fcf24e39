"""The old spellings of `hippo` commands, rewritten to the vocabulary before parsing.

Scripts and fingers learnt ``hippo search``, ``hippo memory list``, ``hippo import FILE
--profile NEW`` and ``hippo log --json``; they keep working, but the parser and the
help only know the one vocabulary (see `assistant.cli`). Each old spelling is rewritten
word for word into the new one, so an alias can't drift from what it stands for.
Options that changed meaning are rewritten too: ``import --profile NEW`` (the target,
now a positional), ``memory review KIND`` and ``approve --all KIND`` (now ``--kind``),
``memory events --delete ID`` (now ``event delete ID``), ``log --json`` (reads, now
``event import``). Old flags of ``hippo sleep`` and the old place of ``--scope`` and
``-c`` are hidden options of the parser instead (see `assistant.cli.parser`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["OldSpellingError", "modern"]

# Options that may come before the command, and whether each takes a value.
_LEADING = {
    "--data-dir": True,
    "--profile": True,
    "--scope": True,
    "--model": True,
    "--create-profile": False,
    "--continue": False,
    "--version": False,
    "--help": False,
}

Rewrite = Callable[[list[str]], list[str]]


class OldSpellingError(Exception):
    """An old spelling with a word it never accepted (a usage error, said in new words)."""


def _flag(token: str, flag: str, shortest: int = 3) -> bool:
    """Whether ``token`` spells ``flag`` (argparse accepts a unique prefix, or =VALUE)."""
    name = token.split("=", 1)[0]
    return len(name) >= shortest and flag.startswith(name) and name.startswith("--")


def _takes_value(token: str) -> bool:
    if "=" in token or not token.startswith("--"):
        return False
    found = [flag for flag in _LEADING if _flag(token, flag)]
    return len(found) == 1 and _LEADING[found[0]]


def _split(tokens: Sequence[str]) -> tuple[list[str], str | None, list[str]]:
    """``tokens`` as (the options before the first word, that word, the rest)."""
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--" or not token.startswith("-") or token == "-":
            break
        index += 2 if _takes_value(token) else 1
    if index >= len(tokens) or tokens[index] == "--":
        return list(tokens), None, []
    return list(tokens[:index]), tokens[index], list(tokens[index + 1 :])


def _take(tail: list[str], flag: str, shortest: int = 3) -> tuple[str | None, list[str]]:
    """Take ``flag VALUE`` (``flag=VALUE``, ``-nVALUE``) out of ``tail``: (value, rest)."""
    for index, token in enumerate(tail):
        if token == "--":
            break
        if not flag.startswith("--") and token.startswith(flag) and token != flag:
            return token[len(flag) :].removeprefix("="), tail[:index] + tail[index + 1 :]
        if token == flag or _flag(token, flag, shortest):
            if "=" in token:
                return token.split("=", 1)[1], tail[:index] + tail[index + 1 :]
            if index + 1 < len(tail):
                return tail[index + 1], tail[:index] + tail[index + 2 :]
    return None, tail


def _without(tail: list[str], *flags: str) -> list[str]:
    """``tail`` less the given flags that take no value."""
    return [t for t in tail if not any(_flag(t, f) for f in flags)]


def _to(*words: str) -> Rewrite:
    return lambda tail: [*words, *tail]


def _log(tail: list[str]) -> list[str]:
    """``log --json``: read JSON lines, now ``event import``; else ``event add``."""
    plain = _without(tail, "--json")
    return ["event", "import", *plain] if plain != tail else ["event", "add", *tail]


def _import(tail: list[str]) -> list[str]:
    """``import FILE --profile NEW``: the new profile is a positional now."""
    into, rest = _take(tail, "--profile")
    return ["profile", "import", *rest, *([into] if into is not None else [])]


def _models(tail: list[str]) -> list[str]:
    lead, word, rest = _split(tail)
    if word == "use":
        return ["model", "use", *lead, *rest]
    return ["model", "list", *tail]


def _token(tail: list[str]) -> list[str]:
    lead, word, rest = _split(tail)
    if word is None:
        return ["token", *tail]
    return ["token", "show" if word == "status" else word, *lead, *rest]


def _review(tail: list[str]) -> list[str]:
    """``memory review KIND``: the kind is a filter, ``--kind``."""
    lead, word, rest = _split(tail)
    if word is None:
        return ["review", "list", *tail]
    return ["review", "list", *lead, "--kind", word, *rest]


def _decide(verb: str) -> Rewrite:
    """``memory approve --all KIND``: now ``review approve --all --kind KIND``."""

    def rewrite(tail: list[str]) -> list[str]:
        out: list[str] = []
        index = 0
        while index < len(tail):
            token = tail[index]
            if token != "--" and _flag(token, "--all", 4) and not _flag(token, "--all-", 6):
                out.append("--all")
                if "=" in token:
                    out += ["--kind", token.split("=", 1)[1]]
                elif index + 1 < len(tail) and not tail[index + 1].startswith("-"):
                    out += ["--kind", tail[index + 1]]
                    index += 1
            else:
                out.append(token)
            index += 1
        return ["review", verb, *out]

    return rewrite


def _listing(noun: str) -> Rewrite:
    """``memory KINDs [--delete ID]``: ``KIND list``, or ``KIND delete ID``."""

    def rewrite(tail: list[str]) -> list[str]:
        gone, rest = _take(tail, "--delete")
        if gone is None:
            return [noun, "list", *tail]
        _, rest = _take(rest, "--limit")
        _, rest = _take(rest, "-n")
        return [noun, "delete", *_without(rest, "--json"), gone]

    return rewrite


def _rm(tail: list[str]) -> list[str]:
    """``memory rm KIND ID``: ``KIND delete ID``."""
    lead, word, rest = _split(tail)
    if word in _KINDS:
        return [word, "delete", *lead, *rest]
    given = f"not {word!r}" if word is not None else "named first"
    raise OldSpellingError(
        f"`hippo memory rm` deletes a {', '.join(_KINDS[:-1])} or {_KINDS[-1]}, {given}; "
        "the vocabulary says it as `hippo KIND delete ID` (`hippo fact delete 12`)."
    )


_KINDS = ("fact", "session", "episode", "event", "document")

MEMORY: dict[str, Rewrite] = {
    **{v: _to("fact", v) for v in ("add", "list", "search", "show", "edit")},
    **{v: _to("fact", v) for v in ("pin", "unpin", "wrong", "outdated")},
    "facts": _to("fact", "list"),
    "review": _review,
    "approve": _decide("approve"),
    "reject": _decide("reject"),
    "history": _to("history", "list"),
    "undo": _to("history", "undo"),
    "believed": _to("history", "believed"),
    **{f"{kind}s": _listing(kind) for kind in ("session", "episode", "event", "document")},
    "rm": _rm,
    "core": _to("core", "list"),
    "export": _to("profile", "export"),
    "backup": _to("backup", "create"),
    "backups": _to("backup", "list"),
    "restore": _to("backup", "restore"),
    "path": _to("db", "path"),
    "rekey": _to("db", "rekey"),
}

TOP: dict[str, Rewrite] = {
    "search": _to("message", "search"),
    "sessions": _to("session", "list"),
    "embed": _to("memory", "embed"),
    "recall": _to("memory", "recall"),
    "log": _log,
    "ingest": _to("document", "add"),
    "path": _to("db", "path"),
    "models": _models,
    "pull": _to("model", "pull"),
    "import": _import,
    "token": _token,
}


def modern(argv: Sequence[str]) -> list[str]:
    """``argv`` with an old spelling of its command rewritten into the vocabulary.

    Options before the command stay where they are; anything that is not an old
    spelling is returned as it was.
    """
    lead, word, tail = _split(argv)
    if word is None:
        return list(argv)
    if word == "memory":
        inner_lead, verb, rest = _split(tail)
        if verb in MEMORY:
            return [*lead, *MEMORY[verb]([*inner_lead, *rest])]
        return list(argv)
    if word in TOP:
        return [*lead, *TOP[word](tail)]
    return list(argv)
