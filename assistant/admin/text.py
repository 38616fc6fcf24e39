"""Plain-text renderings of admin results, for `hippo memory ...` (one line per row)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from assistant.admin.views import (
    Change,
    CoreReviewItem,
    DayActivity,
    EvidenceView,
    FactDetail,
    ForgetPreview,
    ReviewItem,
)
from assistant.memory.archival import Document
from assistant.memory.episodes import Episode
from assistant.memory.facts import Fact
from assistant.memory.records import Session
from assistant.memory.sensory import Event

__all__ = [
    "activity_lines",
    "change_line",
    "detail_lines",
    "document_line",
    "elsewhere_lines",
    "episode_line",
    "event_line",
    "fact_line",
    "preview_lines",
    "review_lines",
    "session_line",
    "short",
]

_BARS = " ▁▂▃▄▅▆▇█"


def short(text: str, width: int = 90) -> str:
    """``text`` on one line, cut to ``width`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _day(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d}" if moment else "-"


def fact_line(fact: Fact) -> str:
    """One fact: id, status, pin, scope, source, confidence, statement."""
    pin = "*" if fact.pinned else " "
    scope = f"[{fact.scope}] " if fact.scope else ""
    return (
        f"{fact.id:>6} {pin} {fact.status:<10} {fact.source_kind:<18} {fact.confidence:4.2f}  "
        f"{scope}{short(fact.statement, 80)}"
    )


def _evidence_line(view: EvidenceView) -> str:
    if view.missing:
        return f"  - {view.kind} {view.ref_id}: (gone)"
    where = f", session {view.session_id}" if view.session_id else ""
    quote = f' quoting "{short(view.quote, 60)}"' if view.quote else ""
    return (
        f"  - {view.kind} {view.ref_id} ({_day(view.at)}, {view.source}{where}){quote}: "
        f"{short(view.text, 100)}"
    )


def detail_lines(detail: FactDetail) -> list[str]:
    """A fact with its evidence, history and replacements."""
    fact = detail.fact
    valid = f"{_day(fact.valid_from)} .. {_day(fact.valid_to)}"
    lines = [
        f"Fact {fact.id}: {fact.statement}",
        f"  status {fact.status}{' (pinned)' if fact.pinned else ''}; scope {fact.scope or '-'};"
        f" source {fact.source_kind} (proposed by {detail.proposed_by});"
        f" confidence {fact.confidence:.2f}; importance {fact.importance:g}",
        f"  valid {valid}; learned {_day(fact.learned_at)};"
        f" used in {detail.times_used} repl{'y' if detail.times_used == 1 else 'ies'}",
        "Evidence:",
        *(_evidence_line(view) for view in detail.evidence),
    ]
    if detail.superseded_by:
        lines.append(
            f"Superseded by fact {detail.superseded_by.id}: {detail.superseded_by.statement}"
        )
    lines += [f"Replaced fact {old.id}: {old.statement}" for old in detail.supersedes]
    lines.append("History:")
    lines += [
        f"  #{c.id} {c.at:%Y-%m-%d %H:%M} {c.actor:<6} {c.action}"
        + (f": {short((c.after or {}).get('statement', ''), 70)}" if c.action == "create" else "")
        for c in detail.history
    ]
    return lines


def change_line(change: Change) -> str:
    """One recorded change."""
    before, after = short(change.before_text, 35), short(change.after_text, 35)
    if change.kind == "core":
        what = f"core {change.target}: {before!r} -> {after!r}"
    elif change.action == "create":
        what = f"fact {change.target}: {short(change.after_text, 70)}"
    elif "statement" in change.fields:
        what = f"fact {change.target}: {before!r} -> {after!r}"
    else:
        fields = ", ".join(change.fields) or "nothing"
        what = f"fact {change.target} ({fields}): {short(change.after_text, 60)}"
    when = f"{change.at:%Y-%m-%d %H:%M}"
    line = f"{change.kind}#{change.id:<5} {when} {change.actor:<6} {change.action:<10} {what}"
    state = change.after or {}
    if change.action == "undo" and state.get("undone"):
        line += f" (undoes fact#{state['undone']}"
        line += f"; {state['note']})" if state.get("note") else ")"
    return line


def session_line(session: Session) -> str:
    """One session: id, last activity, size, title."""
    mark = "  incognito" if session.incognito else ""
    return (
        f"{session.id:>6}  {session.last_active_at:%Y-%m-%d %H:%M}  "
        f"{session.message_count:>4} msgs{mark}  {short(session.title or '(untitled)', 60)}"
    )


def episode_line(episode: Episode) -> str:
    """One episode: id, date, importance, session, summary."""
    return (
        f"{episode.id:>6}  {episode.started_at:%Y-%m-%d}  imp {episode.importance:>2.0f}  "
        f"session {episode.session_id or '-'}  {short(episode.summary, 70)}"
    )


def event_line(event: Event) -> str:
    """One event: id, when, until when, source, text."""
    until = f"{event.expires_at:%Y-%m-%d}" if event.expires_at else "-"
    return (
        f"{event.id:>6}  {event.occurred_at:%Y-%m-%d %H:%M}  until {until}  "
        f"{event.source:<10} {short(event.text, 60)}"
    )


def document_line(document: Document) -> str:
    """One document: id, chunks, date, title, path."""
    return (
        f"{document.id:>6}  {document.chunk_count:>4} chunks  {document.ingested_at:%Y-%m-%d}  "
        f"{short(document.title, 30):<30} {document.path}"
    )


def review_lines(items: Iterable[ReviewItem]) -> list[str]:
    """The review queue, each proposal with its evidence and what it would replace."""
    lines: list[str] = []
    for item in items:
        lines.append(
            f"{item.id:>6}  {item.proposal:<10} by {item.proposed_by:<5} {item.source_kind:<18}"
            f" {item.confidence:4.2f}  {short(item.statement, 70)}"
        )
        if item.replaces:
            lines.append(f"        would replace fact {item.replaces.id}: {short(item.before, 70)}")
        if item.why:
            lines.append(f"        why: {item.why}")
        lines += [f"      {_evidence_line(view)}" for view in item.evidence]
    return lines


def core_review_lines(items: Iterable[CoreReviewItem]) -> list[str]:
    """The model's proposed core memory edits, each with why it waits and its turn."""
    lines: list[str] = []
    for item in items:
        name = f"core#{item.id}"
        lines.append(f"{name:>10}  core edit  by agent  {short(item.statement, 100)}")
        lines.append(f"        why: {item.why}")
        lines += [f"      {_evidence_line(view)}" for view in item.evidence]
    return lines


def indent(value: str, prefix: str = "    ") -> str:
    """Each line of ``value`` indented (an empty block shown as "(empty)")."""
    return "\n".join(prefix + line for line in (value or "(empty)").splitlines())


def preview_lines(preview: ForgetPreview) -> list[str]:
    """What a forget would remove, by tier, every line numbered (for ``--keep``; see
    `ForgetPreview.numbered`) and marked ``[x]`` when it goes, ``[ ]`` when it stays."""
    rows = len(preview.rows)
    of = f"{preview.total} of {rows}" if preview.kept else f"{preview.total}"
    lines = [f"Forgetting {preview.text!r} {preview.where} would remove or rewrite {of} row(s):"]
    numbers = {hit.key: n for n, hit in preview.numbered().items()}
    for tier, count in preview.counts.items():
        hits = preview.hits.get(tier, ())
        if not hits:
            continue
        lines.append(
            f"  {tier} ({count} of {len(hits)})" if count < len(hits) else f"  {tier} ({count})"
        )
        for hit in hits:
            number = f"{numbers[hit.key]}."
            when = f"{_day(hit.at)} " if hit.at else ""
            why = hit.why if preview.selected(hit) else f"kept: {preview.kept[hit.key]}"
            mark = "[x]" if preview.selected(hit) else "[ ]"
            lines.append(f"  {number:>5} {mark} {when}{short(hit.text, 80)} ({why})")
    lines += [
        f"  fact {fact_id} is kept but all its evidence goes: your choice to keep it "
        "becomes its evidence"
        for fact_id in preview.vouched
    ]
    lines.append(
        f"  with {preview.vectors} vector(s) and {preview.index_entries} keyword-index row(s)"
    )
    return lines + elsewhere_lines(preview)


def elsewhere_lines(preview: ForgetPreview) -> list[str]:
    """What other profiles hold that this forget leaves, and the flag that takes it too."""
    if not preview.elsewhere:
        return []
    held = ", ".join(f"{name!r} ({n} row(s))" for name, n in preview.elsewhere.items())
    return [
        f"Other profiles are left as they are and still mention it: {held}; "
        "add --all-profiles to forget it there too."
    ]


def activity_lines(days: list[DayActivity]) -> list[str]:
    """A sparkline of messages per day, then the busiest days."""
    top = max((d.messages for d in days), default=0) or 1
    spark = "".join(_BARS[round(d.messages / top * (len(_BARS) - 1))] for d in days)
    lines = [f"{_day_of(days, 0)} {spark} {_day_of(days, -1)}  (messages per day, max {top})"]
    lines += [
        f"  {d.day}  {d.sessions:>3} sessions  {d.messages:>4} messages  {d.memories:>3} memories"
        for d in days
        if d.messages or d.memories
    ]
    return lines


def _day_of(days: list[DayActivity], index: int) -> str:
    return str(days[index].day) if days else ""
