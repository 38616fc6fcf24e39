"""Memory tools the model may call (MemGPT's functions), validated before they run.

A malformed call gets an error result the model can read and correct; a write by the
model never becomes a user-stated or active fact (it lands pending, for review). Its
core memory edits are proposals that wait for the user's approval, unless the user
chose to let them apply at once; even then, a turn that holds text that looks like an
instruction (in the message, in memory quoted into the prompt, or in a tool result) or
pasted text only proposes, and saves no note.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time
from typing import TYPE_CHECKING, Any

from assistant.errors import HippoError
from assistant.llm.values import ToolCall
from assistant.memory.entities import extract_entities
from assistant.memory.facts import Evidence
from assistant.memory.injection import INSTRUCTION_REASON, looks_like_instruction
from assistant.memory.records import Message, Session
from assistant.memory.retrieval import MemoryItem
from assistant.memory.tool_args import TOOL_SPECS, ArgumentError, validated

if TYPE_CHECKING:
    from assistant.memory.core_proposals import CoreEditMode
    from assistant.memory.recall import Memory

__all__ = ["TOOL_SPECS", "MemoryTools", "ToolResult", "turn_taint"]


_WRITES = frozenset(
    {"core_memory_append", "core_memory_replace", "archival_insert", "remember_fact", "forget_fact"}
)
_READS = frozenset({"recall_search", "archival_search"})
_PROPOSED = "proposed by the assistant"
_PASTED = "the message it came from was pasted (quoted from elsewhere)"
_TO_REVIEW = "(F4 → Review to approve)"


def turn_taint(user_message: Message, quoted: list[str]) -> str:
    """Why a turn's memory writes can't be trusted ('' if nothing says so).

    Args:
        user_message: the message being answered.
        quoted: the memories quoted into the turn's prompt.
    """
    if looks_like_instruction(user_message.content):
        return f"{INSTRUCTION_REASON} (the message it came from)"
    if user_message.origin == "pasted":
        return _PASTED
    if any(looks_like_instruction(text) for text in quoted):
        return f"{INSTRUCTION_REASON} (memory quoted into the prompt of its turn)"
    return ""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool call returned to the model, and a notice for the user if memory changed."""

    name: str
    content: str
    ok: bool = True
    notice: str = ""
    pending: bool = False  # the change waits for the user's review


class ToolError(HippoError):
    """A tool call the model must correct."""


def _validate(name: str, arguments: Any) -> dict[str, Any]:
    try:
        return validated(name, arguments)
    except ArgumentError as exc:
        raise ToolError(str(exc)) from None


def _day(text: str | None, end: bool) -> datetime | None:
    if not text:
        return None
    try:
        day = datetime.strptime(text, "%Y-%m-%d").date()
    except ValueError:
        raise ToolError(f"Dates are written YYYY-MM-DD (got {text!r}).") from None
    return datetime.combine(day, time.max if end else time.min).astimezone()


def _listing(memories: list[MemoryItem]) -> str:
    if not memories:
        return "No matching memories."
    return "\n".join(
        json.dumps(
            {"date": f"{m.at.astimezone():%Y-%m-%d %H:%M}", "source": m.source, "text": m.text},
            ensure_ascii=False,
        )
        for m in memories
    )


class MemoryTools:
    """Runs the model's memory tool calls for one turn.

    Args:
        memory: the memory the tools read and write.
        session: the session of the turn.
        user_message: the message being answered: the evidence for a remembered fact.
        taint: says why this turn's writes can't be trusted (see `turn_taint`), or '';
            asked only when the model writes, so a turn without writes never waits for it.
        core_edits: ``review``: core memory edits wait for the user's approval;
            ``apply``: they apply at once (unless the turn is tainted).
        noted: called after a note is saved (its text waits to be embedded).
    """

    def __init__(
        self,
        memory: Memory,
        session: Session,
        user_message: Message,
        taint: Callable[[], str] = lambda: "",
        *,
        core_edits: CoreEditMode = "review",
        noted: Callable[[], None] = lambda: None,
    ) -> None:
        self._memory = memory
        self._core_edits = core_edits
        self._noted = noted
        self._session = session
        self._user = user_message
        self._taint = taint
        self._tainted: str | None = None
        self._handlers: dict[str, Callable[[dict[str, Any]], ToolResult]] = {
            "core_memory_append": self._core_append,
            "core_memory_replace": self._core_replace,
            "recall_search": self._recall,
            "archival_insert": self._archival_insert,
            "archival_search": self._archival_search,
            "remember_fact": self._remember,
            "forget_fact": self._forget,
        }

    @property
    def taint(self) -> str:
        """Why this turn's writes can't be trusted ('' if nothing says so)."""
        if self._tainted is None:
            self._tainted = self._taint()
        return self._tainted

    def run(self, call: ToolCall) -> ToolResult:
        """Validate and run one call; failures come back as readable error results."""
        if self._session.incognito and call.name in _WRITES:
            return ToolResult(
                call.name,
                "Error: this is an incognito chat: nothing is kept, "
                "so memory can't be written. Answer without saving.",
                ok=False,
            )
        try:
            result = self._handlers[call.name](_validate(call.name, call.arguments))
            if call.name in _READS and not self.taint and looks_like_instruction(result.content):
                self._tainted = f"{INSTRUCTION_REASON} (a tool result in its turn)"
            return result
        except ToolError as exc:
            return ToolResult(call.name, f"Error: {exc}", ok=False)
        except HippoError as exc:
            return ToolResult(call.name, f"Error: {exc}", ok=False)
        except KeyError:
            return ToolResult(call.name, f"Error: there is no tool '{call.name}'.", ok=False)

    @property
    def _pid(self) -> int:
        return self._memory.profile.id

    def _hold(self) -> str:
        """Why the model's core edit waits for review now ('' to apply it at once)."""
        if self.taint:
            return self.taint
        return _PROPOSED if self._core_edits == "review" else ""

    def _core_append(self, args: dict[str, Any]) -> ToolResult:
        label, content = args["label"], args["content"].strip()
        core, reason = self._memory.core, self._hold()
        if not reason:
            block = core.append(self._pid, label, content, actor="agent")
            return ToolResult(
                "core_memory_append",
                f"Done. {block.remaining} characters left.",
                notice=f"Memory updated: {label} block: {content}",
            )
        core.append(self._pid, label, content, actor="agent", dry_run=True)
        proposal = self._memory.core_proposals.propose(
            self._pid, label, "append", content, message_id=self._user.id, reason=reason
        )
        return self._proposed("core_memory_append", proposal.id, content)

    def _core_replace(self, args: dict[str, Any]) -> ToolResult:
        label, old, new = args["label"], args["old_content"], args["new_content"]
        core, reason = self._memory.core, self._hold()
        if not reason:
            core.replace(self._pid, label, old, new, actor="agent")
            return ToolResult(
                "core_memory_replace",
                "Done.",
                notice=f"Memory updated: {label} block now says {new!r}",
            )
        core.replace(self._pid, label, old, new, actor="agent", dry_run=True)
        proposal = self._memory.core_proposals.propose(
            self._pid,
            label,
            "replace",
            new,
            old_content=old,
            message_id=self._user.id,
            reason=reason,
        )
        return self._proposed("core_memory_replace", proposal.id, f"{old!r} → {new!r}")

    @staticmethod
    def _proposed(name: str, proposal_id: int, what: str) -> ToolResult:
        return ToolResult(
            name,
            f"Proposed to the user as core memory proposal {proposal_id}: it is not in core "
            "memory, and won't be used, until they approve it. Don't say it is saved.",
            notice=f"Proposed for core memory: {what} {_TO_REVIEW}",
            pending=True,
        )

    def _recall(self, args: dict[str, Any]) -> ToolResult:
        start, end = _day(args.get("start_date"), False), _day(args.get("end_date"), True)
        found = self._memory.recall(args["query"], kinds=("message",), limit=50)
        found = [
            m for m in found if (start is None or m.at >= start) and (end is None or m.at <= end)
        ][:8]
        return ToolResult("recall_search", _listing(found))

    def _archival_insert(self, args: dict[str, Any]) -> ToolResult:
        if self.taint:
            raise ToolError(
                f"no note was saved: this turn holds text that {self.taint}. Answer without saving."
            )
        ids = self._memory.archive.insert_note(self._pid, args["content"], title="note")
        self._noted()
        return ToolResult(
            "archival_insert",
            f"Saved as note chunk(s) {ids}.",
            notice=f"Memory updated: note saved: {args['content'][:80]}",
        )

    def _archival_search(self, args: dict[str, Any]) -> ToolResult:
        return ToolResult(
            "archival_search",
            _listing(self._memory.recall(args["query"], kinds=("chunk",), limit=5)),
        )

    def _remember(self, args: dict[str, Any]) -> ToolResult:
        fact = self._memory.facts.add(
            self._pid,
            args["statement"],
            evidence=[Evidence("message", self._user.id)],
            source_kind="assistant_inferred",
            actor="agent",
            scope=self._session.scope,
            importance=min(max(args.get("importance", 5), 1), 10),
        )
        self._memory.entities.link(self._pid, "fact", fact.id, extract_entities(fact.statement))
        return ToolResult(
            "remember_fact",
            f"Proposed as fact {fact.id} ({fact.status}); the user will review it.",
            notice=f"Proposed for your profile: {fact.statement} {_TO_REVIEW}",
            pending=fact.status == "pending",
        )

    def _forget(self, args: dict[str, Any]) -> ToolResult:
        fact = self._memory.facts.forget(args["fact_id"], actor="agent", profile_id=self._pid)
        return ToolResult(
            "forget_fact",
            f"Fact {fact.id} is no longer used (undoable).",
            notice=f"Memory updated: stopped using: {fact.statement}",
        )
