"""Entity links: the people, places and projects memory items mention (fragmentation defence).

Recalling one fact about "Project Atlas" should bring its siblings: each item is linked
to the entities it names, and retrieval expands along those links.

The extractor is a cheap heuristic, with no model and no dictionary. It finds capitalised
names (one word when not at a sentence start and not a common word; runs of several words
anywhere), @handles, quoted names and "Project X"-style names. For Chinese it finds only
names in quotes or book-title marks, organisations before a suffix such as 公司 or 大学,
and "项目 X"; a person or a place inside a run of Chinese text is not found, because
telling where a name ends needs a segmenter (jieba) that Hippo does not ship.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from assistant.errors import NotFound
from assistant.memory.base import Store
from assistant.memory.vectors import TEXT_SOURCES
from data_schema.rows import scalar

__all__ = ["LINK_KINDS", "Entity", "EntityStore", "extract_entities", "normalise_name"]

LINK_KINDS = ("fact", "episode", "message", "chunk", "event")
_LATIN = "A-Za-z\u00c0-\u024f"
_WORD = re.compile(rf"[{_LATIN}][{_LATIN}0-9'’-]*")
_HANDLE = re.compile(r"(?<![\w.])@([A-Za-z0-9_][\w.-]*\w)")
_QUOTED = re.compile(r"[\"“«「『《]([^\"“”«»「」『』《》\n]{2,40})[\"”»」』》]")
_PROJECT = re.compile(
    r"\b(?i:project)\s+([A-Z0-9][A-Za-z0-9-]*)"
    r"|项目\s*([A-Za-z0-9][A-Za-z0-9-]*)|([A-Za-z0-9][A-Za-z0-9-]*)\s*项目"
)
_CJK_ORG = re.compile(r"(?=(公司|集团|大学|学院|医院|银行|项目))")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_CJK_TAIL = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{1,4}$")
# Where a name before 公司/项目 cannot start: function words and a few common verbs.
_CJK_STOP = (*"的了是在我你他她它们和与跟去到从给就都也还又很个这那要想说为对做",
             "负责", "参加", "加入", "参与", "管理", "离开", "进入")  # fmt: skip
_CONNECTORS = frozenset({"of", "de", "van", "von", "da", "del", "la", "le", "du", "der"})
_COMMON = frozenset(
    """a an the i i'm i've i'd i'll me my we our us you your he she it they them his her its
    their this that these those there here what when where who why how which whose and but or
    so if then also yes no not ok okay hi hello hey dear thanks thank please sorry well oh just
    maybe let let's can could would should will do did does is are was were after before in on
    at for with from to of by as about every all some any today tomorrow yesterday tonight now
    later soon monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december user""".split()
)
_SKIP = _COMMON | _CONNECTORS
_SUBJECT_VERBS = frozenset(
    "is was has had and said says told asked called works worked lives lived likes loves"
    " wants needs will".split()
)
_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")


def normalise_name(name: str) -> str:
    """The form names are matched in: case-folded, without punctuation or possessive 's."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = re.sub(r"['’]s\b", "", text)
    return " ".join(re.sub(r"[^\w\s]|_", " ", text).split())


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'“‘([")
    return not before or before[-1] in ".!?。！？:\n"


def _capitalised_runs(text: str) -> Iterator[tuple[int, list[str], bool]]:
    """(start, words, at sentence start) of runs of capitalised words ('Bank of X' too)."""
    words = list(_WORD.finditer(text))
    run: list[re.Match[str]] = []
    for i, match in enumerate(words):
        word = match.group()
        joined = bool(run) and text[run[-1].end() : match.start()] in (" ", "  ")
        following = words[i + 1] if i + 1 < len(words) else None
        connects = word in _CONNECTORS and following and following.group()[0].isupper()
        if joined and (word[0].isupper() or connects):
            run.append(match)
        else:
            if run:
                yield _run(text, run)
            run = [match] if word[0].isupper() else []
    if run:
        yield _run(text, run)


def _run(text: str, run: list[re.Match[str]]) -> tuple[int, list[str], bool]:
    """A run's start, words, and whether its first word may just be capitalised by position.

    At a sentence start, a possessive ("Anna's") or a verb after it ("Anna said") still
    marks a name.
    """
    start, last = run[0].start(), run[-1]
    follow = _NEXT_WORD.match(text, last.end())
    named = last.group().endswith(("'s", "’s")) or (follow and follow.group(1) in _SUBJECT_VERBS)
    return start, [m.group() for m in run], _sentence_start(text, start) and not named


def _names_from_run(words: list[str], at_start: bool) -> str | None:
    if len(words) > 1 and all(w.isupper() for w in words):
        return None  # shouting, not a name
    words = [re.sub(r"['’]s$", "", w) for w in words]
    first = 0
    while first < len(words) and words[first].casefold() in _SKIP:
        first += 1
    last = len(words)
    while last > first and words[last - 1].casefold() in _SKIP:
        last -= 1
    kept = words[first:last]
    if not kept or (len(kept) == 1 and (len(kept[0]) < 2 or (at_start and first == 0))):
        return None
    return " ".join(kept)


def _cjk_organisations(text: str) -> Iterator[tuple[int, str]]:
    """Up to four Chinese characters before a suffix such as 公司, cut at a function word."""
    for match in _CJK_ORG.finditer(text):
        before = _CJK_TAIL.search(text, 0, match.start())
        prefix = before.group() if before else ""
        cuts = [prefix.rfind(w) + len(w) for w in _CJK_STOP if w in prefix]
        prefix = prefix[max(cuts, default=0) :]
        if len(prefix) >= 2:
            yield match.start() - len(prefix), prefix + match.group(1)


def extract_entities(text: str) -> list[str]:
    """Names mentioned in ``text``, in order of appearance, one per normalised form.

    A heuristic (see the module docstring): it favours names over recall of every name.
    """
    found: list[tuple[int, str]] = []
    found += [(m.start(), "@" + m.group(1)) for m in _HANDLE.finditer(text)]
    for m in _QUOTED.finditer(text):
        inner = m.group(1).strip()
        short = len(inner.split()) <= 4 and not re.search(r"[.!?,。，！？]", inner)
        if short and (inner[0].isupper() or inner[0].isdigit() or _CJK.match(inner)):
            found.append((m.start(), inner))
    for m in _PROJECT.finditer(text):
        found.append((m.start(), "Project " + (m.group(1) or m.group(2) or m.group(3))))
    found += list(_cjk_organisations(text))
    for start, words, at_start in _capitalised_runs(text):
        name = _names_from_run(words, at_start)
        if name:
            found.append((start, name))
    names: dict[str, str] = {}
    for _, name in sorted(found, key=lambda item: item[0]):
        names.setdefault(normalise_name(name), name)
    return [name for norm, name in names.items() if norm]


@dataclass(frozen=True, slots=True)
class Entity:
    """A named thing a profile's memories mention."""

    id: int
    profile_id: int
    name: str
    norm: str
    kind: str = ""


def _grams(text: str) -> set[str]:
    """Every name-sized piece of ``text``: word n-grams, and CJK substrings."""
    norm = normalise_name(text[:2000])
    words = _CJK.sub(" ", norm).split()
    grams = {" ".join(words[i : i + n]) for n in range(1, 6) for i in range(len(words))}
    for run in _CJK.findall(norm):
        grams |= {run[i : i + n] for n in range(2, 9) for i in range(len(run) - n + 1)}
    return grams


class EntityStore(Store):
    """Reads and writes entities and their links to memory items.

    Built with ``(conn, clock)``: see `Store`.
    """

    def link(self, profile_id: int, kind: str, item_id: int, names: Sequence[str]) -> list[int]:
        """Link an item to the entities ``names`` (created as needed); return their ids.

        Raises:
            ValueError: ``kind`` is not a linkable kind.
            NotFound: the item does not exist in this profile.
        """
        if kind not in LINK_KINDS:
            raise ValueError(f"Can't link a {kind!r}; kinds: {', '.join(LINK_KINDS)}.")
        table = TEXT_SOURCES[kind][0]
        conn, ids = self._conn(), []
        with conn:
            owned = conn.execute(
                f"SELECT 1 FROM {table} WHERE id = ? AND profile_id = ?", (item_id, profile_id)
            ).fetchone()
            if owned is None:
                raise NotFound(f"There is no {kind} {item_id} in this profile to link.")
            for name in names:
                norm = normalise_name(name)
                if not norm:
                    continue
                conn.execute(
                    "INSERT OR IGNORE INTO entities(profile_id, name, norm) VALUES (?, ?, ?)",
                    (profile_id, name.strip(), norm),
                )
                entity_id = scalar(
                    conn,
                    "SELECT id FROM entities WHERE profile_id = ? AND norm = ?",
                    (profile_id, norm),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO entity_links(entity_id, kind, item_id) VALUES (?, ?, ?)",
                    (entity_id, kind, item_id),
                )
                if entity_id not in ids:
                    ids.append(entity_id)
        return ids

    def entities_of(self, kind: str, item_id: int) -> list[Entity]:
        """The entities an item is linked to, by name."""
        rows = self._conn().execute(
            "SELECT e.id, e.profile_id, e.name, e.norm, e.kind FROM entity_links l"
            " JOIN entities e ON e.id = l.entity_id WHERE l.kind = ? AND l.item_id = ?"
            " ORDER BY e.name",
            (kind, item_id),
        )
        return [Entity(*row) for row in rows]

    def find(self, profile_id: int, name: str) -> Entity | None:
        """The profile's entity called ``name`` (in any case or punctuation), if any."""
        row = (
            self._conn()
            .execute(
                "SELECT id, profile_id, name, norm, kind FROM entities"
                " WHERE profile_id = ? AND norm = ?",
                (profile_id, normalise_name(name)),
            )
            .fetchone()
        )
        return Entity(*row) if row else None

    def entities_in(self, profile_id: int, text: str) -> list[Entity]:
        """The profile's known entities that ``text`` mentions (case and punctuation aside)."""
        grams = sorted(_grams(text))
        if not grams:
            return []
        rows = self._conn().execute(
            "SELECT id, profile_id, name, norm, kind FROM entities WHERE profile_id = ?"
            f" AND norm IN ({','.join('?' * len(grams))}) ORDER BY length(norm) DESC, id",
            (profile_id, *grams),
        )
        return [Entity(*row) for row in rows]

    def linked_items(
        self,
        profile_id: int,
        entity_ids: Sequence[int],
        kinds: Sequence[str] = ("fact",),
        exclude: tuple[str, int] | None = None,
        limit: int = 20,
    ) -> list[tuple[str, int]]:
        """Items of ``kinds`` sharing any of the entities, most shared entities first.

        Items are returned whatever their status: a caller showing facts filters out
        rejected or superseded ones.
        """
        if not entity_ids or not kinds:
            return []
        skip = exclude or ("", -1)
        rows = self._conn().execute(
            "SELECT l.kind, l.item_id FROM entity_links l JOIN entities e ON e.id = l.entity_id"
            f" WHERE e.profile_id = ? AND l.entity_id IN ({','.join('?' * len(entity_ids))})"
            f" AND l.kind IN ({','.join('?' * len(kinds))}) AND NOT (l.kind = ? AND l.item_id = ?)"
            # Deleting a message does not delete its links (no trigger), so check it still exists.
            " AND (l.kind != 'message' OR EXISTS (SELECT 1 FROM messages m WHERE m.id = l.item_id))"
            " GROUP BY l.kind, l.item_id ORDER BY count(*) DESC, l.item_id DESC LIMIT ?",
            (profile_id, *entity_ids, *kinds, *skip, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def items_for_query(
        self, profile_id: int, query_text: str, kinds: Sequence[str] = ("fact",), limit: int = 20
    ) -> list[tuple[str, int]]:
        """Items linked to the entities a query mentions (the retrieval expansion)."""
        entities = self.entities_in(profile_id, query_text)
        return self.linked_items(profile_id, [e.id for e in entities], kinds, limit=limit)
