"""What a statement claims about the user: a slot (relation), its value, and how it holds.

"I live in Porto" claims (home, {porto}); "I moved to Lisbon last month" claims
(home, {lisbon}) and says it changed; "Sam and I broke up" says (partner, {sam}) has
ended. Two claims about one slot can then be compared (`assistant.memory.facts.
corrections`): the same value is a repeat, a different value of a slot that holds one
value at a time is a correction.

Slots come from two sources:

* relations that hold one value at a time for a person: where they live, where they
  work, who their partner is. Each is named by its state verbs ("live in", 住在), its
  change verbs ("moved to", 搬到, "joined", 入职) and its ending verbs ("quit",
  "broke up", 分手, 辞职). These are the relations people correct most, and ones whose
  value is single by what they mean, which words alone can't tell;
* the sentence's own frame: "my <thing> is <value>" (我的X是Y, X改到Y) names an
  attribute of a thing, which has one value; "I <verb> <object>" names a relation whose
  values may be many ("I like jazz", "I like rock"), so only a change word or a
  negation makes a different value a contradiction.

Only claims whose subject is the user count: "I", "my", "the user", 我, or no subject
(Chinese drops it). Questions claim nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from assistant.memory.facts import cues
from assistant.memory.scoring import terms

__all__ = ["Claim", "claims", "clauses", "sentences"]

_SENTENCE = re.compile(r"(?<=[.!?。！？\n])\s*")
_CLAUSE = re.compile(r"[,;:，；：、]|\s+(?:but|so|because)\s+|但是|不过|所以|因为|然后")
_CJK = re.compile(r"[\u3400-\u9fff]")
_CUT = re.compile(
    r"\b(?:now|currently|since|for|last|this|next|ago|because|and|but|anymore|any more"
    r"|these days|nowadays|actually|already|recently|again|too|as well|yesterday|today"
    r"|tomorrow|instead|from now on|full[- ]time|part[- ]time)\b.*$"
)
_GENERIC = frozenset(
    "job work place home house flat apartment partner girlfriend boyfriend wife husband"
    " new old my the user".split()
)
# Words between the user and the verb that say nothing of the slot.
_FILLER_EN = frozenset(
    "i we am was were be been have has had do did does not never no longer now currently"
    " still actually just recently also finally officially already really will so well oh"
    " btw hey yeah ok okay both then lately usually always used to going gonna got get found"
    " a an".split()
)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|(?<!不再)[不没](?!再)")
_CONTRACTIONS = (
    (re.compile(r"\b(i|you|we|they)'m\b"), r"\1 am"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'(?:ve|ll|d|re)\b"), ""),
    (re.compile(r"\bthe user's\b"), "my"),
    (re.compile(r"\b(?:the )?user\b"), "i"),
)

# (slot, kind, pattern): kind is "state", "change" (it now holds) or "end" (it no longer
# holds). The value is group "v"; text before the match must be the user (see `_subject`).
_RELATIONS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (slot, kind, re.compile(pattern))
    for slot, kind, pattern in (
        ("home", "end", r"\bmoved (?:out of|away from)\s+(?P<v>.+)"),
        (
            "home",
            "change",
            r"\b(?:moved|move|moving|relocated|relocating)\s+(?:back\s+)?(?:to|into)\s+(?P<v>.+)",
        ),
        (
            "home",
            "state",
            r"\b(?:live|lives|living|reside|resides|residing|based|staying|settled)"
            r"\s+(?:in|at|near)\s+(?P<v>.+)",
        ),
        (
            "home",
            "state",
            r"\bmy (?:new |current )?(?:home|address|flat|house) is (?:in |at |near )?(?P<v>.+)",
        ),
        (
            "work",
            "end",
            r"\b(?:quit|lost|left) my job\b(?P<v>)"
            r"|\b(?:resigned|got fired|was fired|got laid off|was laid off|retired)\b(?P<v2>)",
        ),
        (
            "work",
            "change",
            r"\b(?:joined|started (?:a new job |working |work )?(?:at|with|for)"
            r"|new job (?:at|with)|got a job (?:at|with)|hired (?:at|by)"
            r"|switched jobs? to|changed jobs? to)\s+(?P<v>.+)",
        ),
        ("work", "change", r"\b(?:changed|switched|new) jobs?\b(?P<v>)"),
        ("work", "state", r"\b(?:work|works|working|employed)\s+(?:at|for|with)\s+(?P<v>.+)"),
        (
            "work",
            "state",
            r"\bmy (?:new |current )?(?:job|work|employer|company) is (?:at |with )?(?P<v>.+)",
        ),
        (
            "partner",
            "end",
            r"\b(?:broke up with|split up with|divorced|separated from|dumped)\s*(?P<v>.*)"
            r"|^(?P<v2>\w+) and i (?:broke up|split up|split|divorced|separated|are over)"
            r"|\bi am single\b(?P<v3>)|\bwe (?:broke up|split up|split|divorced|separated)\b",
        ),
        (
            "partner",
            "state",
            r"\b(?:dating|engaged to|married to|in a relationship with|going out with)"
            r"\s+(?P<v>.+)"
            r"|\bmy (?:girlfriend|boyfriend|partner|wife|husband|fiancee?|spouse)"
            r"(?:'s name)? is (?:called )?(?P<v2>.+)",
        ),
        ("any", "end", r"\b(?:quit|left|leaving|stopped)\s+(?P<v>.+)"),
        ("home", "change", r"(?:搬到了?|搬去了?|搬回了?|搬家到了?|搬进了?)(?P<v>[^，。]+)"),
        ("home", "state", r"(?:住在|居住在|定居在?|住)(?P<v>[^，。]+)"),
        ("work", "end", r"(?:辞职|离职|辞掉了?工作|被裁|被开除|丢了工作|失业|退休)(?P<v>)"),
        ("work", "end", r"不在(?P<v>[^，。]+?)(?:上班|工作|干)"),
        ("work", "change", r"(?:换了?(?:个|份)?(?:新)?工作|跳槽)(?:到|去)?了?(?P<v>[^，。]*)"),
        ("work", "change", r"(?:入职了?|加入了?)(?P<v>[^，。]+)"),
        ("work", "state", r"(?<![现正实存所好])在(?P<v>[^，。在]+?)(?:上班|工作|任职|实习)"),
        ("partner", "end", r"和(?P<v>[^，。]+?)(?:分手|离婚|分开)|(?:分手|离婚|恢复单身)(?P<v2>)"),
        ("any", "end", r"不在(?P<v>[^，。]+?)了|离开了?(?P<v2>[^，。]+)"),
        (
            "partner",
            "state",
            r"(?:女朋友|男朋友|对象|老婆|老公|妻子|丈夫|未婚妻|未婚夫|另一半)(?:是|叫)"
            r"(?P<v>[^，。]+)|和(?P<v2>[^，。]+?)(?:在一起|谈恋爱|恋爱|交往|订婚|结婚)",
        ),
    )
)
_SINGLE = frozenset({"home", "work", "partner"})
# A word every pattern above needs: a clause without one is not read pattern by pattern.
_TRIGGER = re.compile(
    r"liv|resid|based|stay|settled|mov|relocat|home|address|flat|house|job|work|employ|join"
    r"|start|hire|quit|left|leav|lost|resign|fired|laid|retir|chang|switch|new|broke|split"
    r"|divorc|separat|dump|single|dating|engaged|married|relationship|going out|friend"
    r"|partner|wife|husband|fianc|spouse|stopp|we "
    r"|住|搬|辞|离职|被裁|开除|工作|失业|退休|跳槽|入职|加入|上班|任职|实习|分手|离婚|分开|单身"
    r"|朋友|对象|老婆|老公|妻子|丈夫|未婚|另一半|在一起|恋爱|交往|订婚|结婚|不在|离开"
)
_MY_BE = re.compile(
    r"^my (?P<np>[a-z' ]+?) (?:(?:is|are|was|has been)(?: now| currently| actually| still)?"
    r"|(?:has |was |got |is )?(?:moved|changed|switched|rescheduled)(?: from (?P<old>.+?))?"
    r" to) (?P<v>.+)$"
)
_ZH_BE = re.compile(
    r"^(?:我的|把)?(?P<np>[^，。是在把]{2,8}?)(?:现在|已经|其实)?"
    r"(?:是|在|改到了?|改成了?|换成了?|调到了?|变成了?|改为|改在)(?P<v>[^，。]+)$"
)
# 我 + words that say nothing + a verb (its first character: no segmenter) + the rest.
_ZH_DO = re.compile(
    r"^我(?:现在|目前|如今|其实|已经|每天|一直|还|也|都|就|又|不再|不|没有?|再)*"
    r"(?P<verb>[\u4e00-\u9fff])(?P<v>[^，。]+)$"
)
_ZH_FROM_TO = re.compile(r"从(?P<old>[^，。]+?)(?:换成|改成|换到|改到|搬到|变成)(?P<v>[^，。]+)")
_EN_FROM_TO = re.compile(r"\bfrom (?P<old>[a-z0-9' ]+?) to (?P<v>[a-z0-9' ]+)")


@dataclass(frozen=True, slots=True)
class Claim:
    """One thing a clause says about the user.

    ``slot`` names what it is about (``home``, ``be:yoga class``, ``do:eat``); ``value``
    is what it says the slot holds (content words; for Chinese, the phrase itself).
    ``single``: the slot holds one value at a time. ``ending``: the clause says the
    slot no longer holds ``value``. ``change``: it says something changed.
    ``replaced``: a value it says was replaced ("from X to Y": X).
    """

    slot: str
    value: frozenset[str]
    single: bool
    ending: bool = False
    negated: bool = False
    change: bool = False
    replaced: frozenset[str] = field(default_factory=frozenset)


def sentences(text: str) -> list[str]:
    """The text's sentences as written (questions too)."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


@lru_cache(maxsize=8192)
def clauses(text: str) -> tuple[str, ...]:
    """The statement's clauses, normalised, leaving out questions."""
    out: list[str] = []
    for sentence in _SENTENCE.split(text.strip()):
        if not sentence or cues.QUESTION.search(sentence.strip()):
            continue
        lowered = sentence.lower().strip().rstrip(".!。！")
        for pattern, repl in _CONTRACTIONS:
            lowered = pattern.sub(repl, lowered)
        lowered = lowered.replace("用户", "我")
        for part in _CLAUSE.split(lowered):
            out += _joined(part.strip()) if part and part.strip() else []
    return tuple(out)


def _joined(part: str) -> list[str]:
    """``part``, with a lone word before "and" kept with what follows ("sam and i")."""
    pieces = [p for p in part.split(" and ") if p.strip()]
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1].split()) == 1:
            out[-1] = f"{out[-1]} and {piece}"
        else:
            out.append(piece.strip())
    return out


@lru_cache(maxsize=4096)
def claims(text: str) -> tuple[Claim, ...]:
    """What ``text`` claims about the user, clause by clause (cached by text)."""
    found: list[Claim] = []
    for clause in clauses(text):
        claim = _relation(clause) or _frame(clause)
        if claim is not None:
            found.append(claim)
    return tuple(found)


def _value(phrase: str) -> frozenset[str]:
    phrase = phrase.strip()
    if _CJK.search(phrase):
        phrase = cues.ZH_PARTICLES.sub("", cues.ZH_FILLER.sub("", phrase)).strip()
        return frozenset({phrase}) if phrase else frozenset()
    phrase = _CUT.sub("", phrase)
    return frozenset(terms(phrase) - _GENERIC)


def _subject(before: str) -> bool:
    """Whether the words before the verb are only the user and words that say nothing."""
    if _CJK.search(before) or not before.strip():
        return not cues.ZH_FILLER.sub("", before).strip(" 不没")
    return set(re.findall(r"[a-z']+", before)) <= _FILLER_EN


def _lemma(verb: str) -> str:
    """The verb without its third-person ending ("the user takes" is "I take")."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:ss|x|z|ch|sh|o)es$", verb):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def _relation(clause: str) -> Claim | None:
    if not _TRIGGER.search(clause):
        return None
    for slot, kind, pattern in _RELATIONS:
        match = pattern.search(clause)
        if match is None or not _subject(clause[: match.start()]):
            continue
        said = match.group("v") or match.groupdict().get("v2") or match.groupdict().get("v3")
        value = _value(said or "")
        change = kind == "change" or cues.CHANGE.search(clause) is not None
        ending = kind == "end" or cues.ENDING.search(clause) is not None
        negated = not ending and _NEGATION.search(clause[: match.end()]) is not None
        return Claim(slot, value, slot in _SINGLE, ending or negated, False, change)
    return None


def _frame(clause: str) -> Claim | None:
    """A claim from the sentence's own frame ("my X is Y", 我的X是Y, "I <verb> ...")."""
    explicit = _ZH_FROM_TO.search(clause) or _EN_FROM_TO.search(clause)
    replaced = _value(explicit.group("old")) if explicit else frozenset()
    change = cues.CHANGE.search(clause) is not None or explicit is not None
    ending = cues.ENDING.search(clause) is not None
    negated = _NEGATION.search(clause) is not None and not ending
    match = _MY_BE.match(clause) or _ZH_BE.match(clause)
    if match is not None:
        np = " ".join(sorted(terms(match.group("np")))) or match.group("np")
        old = match.groupdict().get("old")
        replaced |= _value(old) if old else frozenset()
        return Claim(f"be:{np}", _value(match.group("v")), True, ending, negated, change, replaced)
    zh = _ZH_DO.match(clause)
    if zh is not None:
        value = _value(zh.group("v"))
        return Claim(f"do:{zh.group('verb')}", value, False, ending, negated, change, replaced)
    words = clause.split()
    if not words or words[0] != "i":
        return None
    rest = [w for w in words[1:]]
    while rest and rest[0] in _FILLER_EN:
        rest.pop(0)
    if not rest:
        return None
    verb = _lemma(rest[0])
    return Claim(f"do:{verb}", _value(" ".join(rest[1:])), False, ending, negated, change, replaced)
