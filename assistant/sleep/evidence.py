"""The defences a candidate fact passes before it may be proposed.

* hallucination: a candidate's cited messages must exist in the conversation and contain
  its key terms (the words of the statement that carry its meaning), among them one that
  is not a name: "Thanks, Nate!" does not back "Nate's story";
* feedback loop: an assistant reply that only repeats memory recalled into its prompt is
  not evidence; a candidate with no other evidence is an echo and is dropped;
* attribution: "the user said it" needs a user message that says it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from assistant.memory.scoring import terms
from assistant.memory.sleep_candidates import fingerprint, normal_text, review_prints

__all__ = [
    "coverage",
    "fingerprint",
    "key_terms",
    "name_terms",
    "normal_statement",
    "review_prints",
    "similar_statements",
    "supports",
]

# Words every statement about the user has; they say nothing about what it claims.
_GENERIC = frozenset(
    """user users s person people someone they them like likes liked prefer prefers preferred
    want wants wanted has have had is are was were be been being does do did also currently
    now usually often really very thing things""".split()
)
# Dates are resolved by Hippo, so they need not appear in the words that were said.
_DATES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february"
    r"|march|april|may|june|july|august|september|october|november|december)\b|\b(?:19|20)\d\d\b",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"[A-Z][a-z]+(?:'s)?\b")  # a name, or a sentence's first word
SUPPORT = 0.5  # share of a statement's key terms its evidence must contain


def key_terms(statement: str) -> frozenset[str]:
    """The words that carry a statement's claim (no generic words, no resolved dates)."""
    return frozenset(t for t in terms(_DATES.sub(" ", statement)) if t not in _GENERIC)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _matches(term: str, found: frozenset[str]) -> bool:
    if term in found:
        return True
    stem = _stem(term)
    if len(stem) < 3:
        return False
    # Inflections the crude stemmer misses ("uses"/"use", "liv"/"live", "allergy"/"allergic").
    return any(_same_word(stem, _stem(t)) for t in found)


def _same_word(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    if len(short) < 3:
        return False
    if long.startswith(short) and len(long) - len(short) <= 3:
        return True
    return len(short) >= 5 and short[:5] == long[:5]


def coverage(statement: str, texts: Iterable[str]) -> float:
    """Share of the statement's key terms found in ``texts`` (0 when it has none)."""
    wanted = key_terms(statement)
    if not wanted:
        return 0.0
    found = frozenset().union(*(terms(text) for text in texts))
    return sum(_matches(t, found) for t in wanted) / len(wanted)


def supports(statement: str, texts: Sequence[str], share: float = SUPPORT) -> bool:
    """Whether ``texts`` contain enough of the statement's key terms to back it.

    Where the statement has key terms other than the names found (a name is written
    capitalised inside a sentence, in the statement or the texts), one of them must be
    found too: a name alone does not back what is said of it ("Thanks, Nate!" does not
    back "Nate's Story", though it holds half its terms). A sentence whose only key terms
    are names ("The user prefers Rust") is backed by them.
    """
    if not texts or coverage(statement, texts) < share:
        return False
    found = frozenset().union(*(terms(text) for text in texts))
    names = name_terms(statement).union(*(name_terms(text) for text in texts))
    content = key_terms(statement) - {t for t in names if _matches(t, found)}
    return not content or any(_matches(t, found) for t in content)


def name_terms(statement: str) -> frozenset[str]:
    """The key terms that are names: capitalised words other than a sentence's first, and
    the first too where it stands alone or before another capitalised word ("Nate Smith")."""
    names: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", statement.strip()):
        said = sentence.split()
        for n, word in enumerate(said):
            if not _CAPITALISED.match(word):
                continue
            alone = len(said) == 1 or (n + 1 < len(said) and said[n + 1][:1].isupper())
            if n > 0 or alone:
                names.append(word)
    return frozenset(t for w in names for t in terms(w))


def similar_statements(a: str, b: str, overlap: float = 0.6) -> bool:
    """Whether two statements say nearly the same (Jaccard overlap of key terms)."""
    ta, tb = key_terms(a), key_terms(b)
    if not ta or not tb:
        return normal_text(a) == normal_text(b)
    return len(ta & tb) / len(ta | tb) >= overlap


def normal_statement(text: str) -> str:
    """A statement as duplicates are compared: case, spacing and punctuation aside."""
    return normal_text(text)
