"""What the memory inspector and the `hippo memory` commands see: dataclasses, never rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from assistant.memory.core_proposals import CoreProposal
from assistant.memory.episodes import Episode
from assistant.memory.facts import Fact, FactChange
from assistant.memory.profile_data.purge_plan import ForgetHit
from assistant.memory.records import Profile

__all__ = [
    "TIERS",
    "AdminStats",
    "Change",
    "CoreReviewItem",
    "DayActivity",
    "DayEpisodes",
    "EvidenceView",
    "FactDetail",
    "ForgetHit",
    "ForgetPreview",
    "ForgetReceipt",
    "ImportReport",
    "ReviewItem",
]

# The tiers a forget reports on, in the order they are shown.
TIERS = (
    "messages",
    "sessions",
    "episodes",
    "facts",
    "evidence",
    "history",
    "chunks",
    "documents",
    "events",
    "core",
    "entities",
    "sleep",
)


@dataclass(frozen=True, slots=True)
class EvidenceView:
    """One piece of a fact's evidence with the text it points at.

    Attributes:
        kind: message, episode, chunk, event or fact.
        ref_id: the cited item's id.
        quote: the quote stored with the evidence ('' when the whole item is cited).
        text: the cited item's text as it is now ('' when it is gone).
        at: when it was said, happened or was learned.
        session_id: the session it belongs to (messages and episodes).
        source: who or what it came from ("you said", "Hippo said", a document title...).
        missing: the cited item no longer exists.
    """

    kind: str
    ref_id: int
    quote: str
    text: str
    at: datetime | None
    session_id: int | None = None
    source: str = ""
    missing: bool = False


@dataclass(frozen=True, slots=True)
class FactDetail:
    """A fact with its provenance: evidence, history, and what it replaced or was replaced by."""

    fact: Fact
    evidence: tuple[EvidenceView, ...]
    history: tuple[FactChange, ...]
    supersedes: tuple[Fact, ...]
    superseded_by: Fact | None
    proposed_by: str
    times_used: int


@dataclass(frozen=True, slots=True)
class CoreReviewItem:
    """A core memory edit the model proposed, awaiting the user's approval.

    Attributes:
        proposal: the proposed edit.
        evidence: the message of the turn that caused it (empty once it is deleted).
    """

    proposal: CoreProposal
    evidence: tuple[EvidenceView, ...]

    @property
    def id(self) -> int:
        """The proposal's id (``core#ID`` in commands)."""
        return self.proposal.id

    @property
    def statement(self) -> str:
        """The proposed edit in words."""
        return self.proposal.description

    @property
    def why(self) -> str:
        """Why it waits for review."""
        return self.proposal.reason


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """A pending fact awaiting the user's approval.

    Attributes:
        fact: the pending fact.
        proposal: ``conflict`` (it would replace ``replaces``), ``reflection`` or ``fact``.
        proposed_by: who wrote it: ``sleep``, ``agent`` (the model's tools), ``user``, ``system``.
        evidence: its evidence with the quoted text and dates.
        replaces: the active fact it would supersede, for a conflict.
        why: why it waits for review, in words ("looks like an instruction to the
            assistant (in its evidence)", "from text you pasted", ...).
    """

    fact: Fact
    proposal: str
    proposed_by: str
    evidence: tuple[EvidenceView, ...]
    replaces: Fact | None = None
    why: str = ""

    @property
    def id(self) -> int:
        """The pending fact's id."""
        return self.fact.id

    @property
    def statement(self) -> str:
        """What the fact says."""
        return self.fact.statement

    @property
    def source_kind(self) -> str:
        """Where the fact comes from (user_stated, assistant_inferred, ...)."""
        return self.fact.source_kind

    @property
    def confidence(self) -> float:
        """The fact's confidence, 0-1."""
        return self.fact.confidence

    @property
    def before(self) -> str:
        """The statement it would replace ('' when it replaces nothing)."""
        return self.replaces.statement if self.replaces else ""

    @property
    def after(self) -> str:
        """The statement approval would make true."""
        return self.fact.statement


@dataclass(frozen=True, slots=True)
class Change:
    """One recorded memory change, of a fact or a core block, newest first in listings.

    Attributes:
        id: the change's id within its kind (what ``undo`` takes).
        kind: ``fact`` or ``core``.
        target: the fact id, or the core block's label.
        actor: user, agent (the model), sleep or system.
        action: create, update, approve, reject, supersede, undo... (``edit`` for core).
        at: when.
        before_text: the statement or block text before ('' for a create).
        after_text: the statement or block text after.
        fields: the fact fields that changed (empty for core blocks).
        before: the stored state before (fact columns), None for a create or a core change.
        after: the stored state after, None for a core change.
    """

    id: int
    kind: Literal["fact", "core"]
    target: str
    actor: str
    action: str
    at: datetime
    before_text: str
    after_text: str
    fields: tuple[str, ...] = ()
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ForgetPreview:
    """Every row a forget would delete or rewrite, by tier (see ``TIERS``), and which stay.

    Every line is selected unless the user deselected it, or it stays with one they did
    (``kept``, by line key, says why). ``counts`` and ``total`` count the selected lines:
    what the forget will remove. ``vectors`` and ``index_entries`` count the embeddings
    and keyword-index rows that go with them (those of neighbouring messages, which carry
    their words, included).
    """

    text: str
    hits: dict[str, tuple[ForgetHit, ...]]
    vectors: int = 0
    index_entries: int = 0
    profiles: tuple[str, ...] = ()
    """The profiles it covers (forget works per profile unless asked for all)."""
    elsewhere: dict[str, int] = field(default_factory=dict)
    """Rows mentioning it in profiles it does not cover, by profile name."""
    kept: dict[str, str] = field(default_factory=dict)
    """Lines that stay, by key: why (deselected, or needed by one that was)."""
    vouched: tuple[int, ...] = ()
    """Kept facts whose every piece of evidence goes: the user's choice becomes it."""
    plans: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    """The plans before any selection, per profile (to select again without a search)."""

    @property
    def where(self) -> str:
        """Which profiles, as a phrase: "in profile 'default'" or "in every profile (...)"."""
        names = ", ".join(repr(name) for name in self.profiles)
        return f"in profile {names}" if len(self.profiles) == 1 else f"in every profile ({names})"

    @property
    def rows(self) -> tuple[ForgetHit, ...]:
        """Every line, selected or not, tier by tier in the order of ``TIERS``."""
        return tuple(hit for tier in TIERS for hit in self.hits.get(tier, ()))

    def numbered(self) -> dict[int, ForgetHit]:
        """Every line by number, from 1: first those of the preview with nothing kept, then
        the ``latent`` ones, so that a line's number stays the same whatever is kept."""
        rows = self.rows
        ordered = [hit for hit in rows if not hit.latent] + [hit for hit in rows if hit.latent]
        return dict(enumerate(ordered, start=1))

    def selected(self, hit: ForgetHit) -> bool:
        """Whether the forget removes this line."""
        return hit.key not in self.kept

    @property
    def counts(self) -> dict[str, int]:
        """How many selected rows per tier, for every tier (zeros included)."""
        return {
            tier: sum(1 for hit in self.hits.get(tier, ()) if self.selected(hit)) for tier in TIERS
        }

    @property
    def total(self) -> int:
        """How many selected rows in all."""
        return sum(self.counts.values())

    @property
    def empty(self) -> bool:
        """Nothing matches."""
        return not any(self.hits.values())

    @property
    def nothing_selected(self) -> bool:
        """Something matches, but every line is kept: a forget would remove nothing."""
        return not self.empty and self.total == 0


@dataclass(frozen=True, slots=True)
class ForgetReceipt:
    """What a forget (or a session delete) removed, what it kept, and the housekeeping."""

    what: str
    counts: dict[str, int]
    vectors: int
    index_entries: int
    housekeeping: tuple[str, ...] = ()
    backups: tuple[Path, ...] = ()
    notes: tuple[str, ...] = ()
    verb: str = "Forgot"
    kept: tuple[str, ...] = ()
    """One line per row left in place (deselected, or staying with one that was)."""

    @property
    def total(self) -> int:
        """Rows deleted or rewritten, over all tiers."""
        return sum(self.counts.values())

    def text(self) -> str:
        """The receipt as the user reads it."""
        lines = [f"{self.verb} {self.what}: {self.total} row(s)."]
        lines += [f"  {tier:<10} {n}" for tier, n in self.counts.items() if n]
        lines.append(f"  vectors    {self.vectors}")
        lines.append(f"  index rows {self.index_entries}")
        if self.kept:
            lines.append(f"Kept {len(self.kept)} row(s), as you chose:")
            lines += [f"  {line}" for line in self.kept]
        if self.housekeeping:
            lines.append("Housekeeping: " + ", ".join(self.housekeeping) + ".")
        lines += list(self.notes)
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import restored, into which new profile."""

    profile: Profile
    counts: dict[str, int]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DayActivity:
    """One day's activity: sessions active, messages written, memories learned."""

    day: date
    sessions: int = 0
    messages: int = 0
    memories: int = 0


@dataclass(frozen=True, slots=True)
class DayEpisodes:
    """The episodes that ended on one day, most important first."""

    day: date
    episodes: tuple[Episode, ...]


@dataclass(frozen=True, slots=True)
class AdminStats:
    """How much the profile remembers, per tier, and the data file's size."""

    profile: Profile
    counts: dict[str, int]
    facts_by_status: dict[str, int]
    pending_review: int
    queued_embeddings: int
    file_bytes: int
    last_sleep: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)
