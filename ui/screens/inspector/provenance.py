"""Provenance: where a fact came from, or which memories went into a reply and why."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Header, Static

from assistant.errors import HippoError
from assistant.terminal import visible
from ui.format import clip, day, stamp
from ui.screens.inspector.history import ACTOR_NAMES
from ui.screens.inspector.pane import Place
from ui.screens.styles import SCREENS_CSS
from ui.widgets import RecordTable
from ui.widgets.fact_filters import SOURCE_LABELS
from ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from assistant.admin.browse import UsedMemory
    from assistant.admin.views import EvidenceView, FactDetail
    from assistant.engine import Hippo

__all__ = ["ProvenanceScreen", "fact_summary"]


def fact_summary(detail: FactDetail) -> Content:
    """A fact's header: what it says, its standing, and what it replaced or was replaced by."""
    fact = detail.fact
    valid = f"{day(fact.valid_from) or 'always'} → {day(fact.valid_to) or 'now'}"
    lines = [
        Content.assemble((f"Fact {fact.id}: ", "bold"), visible(fact.statement)),
        Content.assemble(
            ("status ", "dim"),
            fact.status,
            ("  source ", "dim"),
            SOURCE_LABELS.get(fact.source_kind, fact.source_kind),
            ("  confidence ", "dim"),
            f"{fact.confidence:.2f}",
            ("  importance ", "dim"),
            f"{fact.importance:g}",
            ("  scope ", "dim"),
            visible(fact.scope) or "general",
            ("  valid ", "dim"),
            valid,
        ),
        Content.assemble(
            ("learned ", "dim"),
            stamp(fact.learned_at),
            ("  by ", "dim"),
            ACTOR_NAMES.get(detail.proposed_by, detail.proposed_by),
            ("  used in ", "dim"),
            f"{detail.times_used} repl{'y' if detail.times_used == 1 else 'ies'}",
            ("  pinned" if fact.pinned else "", "yellow"),
        ),
    ]
    lines += [
        Content.assemble(("replaced: ", "dim"), visible(old.statement)) for old in detail.supersedes
    ]
    if detail.superseded_by is not None:
        replaced_by = visible(detail.superseded_by.statement)
        lines.append(Content.assemble(("replaced by: ", "dim"), replaced_by))
    return Content("\n").join(lines)


class ProvenanceScreen(Screen[Place | None]):
    """A fact's evidence and history, or a reply's memories with their score breakdown.

    Enter on a row opens its session read-only over this screen, or, for a fact, that
    fact's own provenance; continuing that session dismisses this screen with its place.

    Args:
        engine: the engine to read from.
        fact_id: the fact to trace.
        reply_id: the reply whose memories to show (when no fact is given).
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Back")]

    def __init__(
        self, engine: Hippo, *, fact_id: int | None = None, reply_id: int | None = None
    ) -> None:
        super().__init__()
        self.engine = engine
        self.fact_id, self.reply_id = fact_id, reply_id
        self.rows: dict[int, EvidenceView] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="provenance"):
            yield Static(id="provenance-head")
            yield Static(id="provenance-title", classes="section")
            yield RecordTable(self._columns(), id="provenance-table")
            yield Static(id="provenance-foot", classes="detail")
        yield Footer()

    def _columns(self) -> list[tuple[str, int | None]]:
        if self.fact_id is not None:
            return [("Kind", 8), ("When", 16), ("From", 20), ("Text (quote)", 66)]
        return [
            ("#", 2),
            ("Section", 8),
            ("Kind", 7),
            ("Memory", 56),
            ("Score", 5),
            ("Relev.", 6),
            ("Recency", 7),
            ("Imp.", 4),
        ]

    def on_mount(self) -> None:
        try:
            self._show_fact() if self.fact_id is not None else self._show_reply()
        except HippoError as exc:
            self.query_one("#provenance-head", Static).update(Content(visible(str(exc))))
        self.query_one("#provenance-table", RecordTable).focus()

    def _show_fact(self) -> None:
        assert self.fact_id is not None
        detail: FactDetail = self.engine.admin.facts.detail(self.fact_id)
        self.sub_title = f"Where fact {self.fact_id} came from"
        self.query_one("#provenance-head", Static).update(fact_summary(detail))
        episodes = self._episodes_around(detail.evidence)
        self.rows = dict(enumerate([*detail.evidence, *episodes]))
        also = f", and {len(episodes)} episode(s) it was part of" if episodes else ""
        self.query_one("#provenance-title", Static).update(
            Content(
                f"Evidence ({len(detail.evidence)}){also} · Enter opens one (a message in "
                "its session, a fact's own evidence)"
            )
        )
        self.query_one("#provenance-table", RecordTable).show(
            (key, (view.kind, stamp(view.at), clip(view.source, 20), _evidence_text(view)))
            for key, view in self.rows.items()
        )
        changes = [
            f"{stamp(c.at)}  {ACTOR_NAMES.get(c.actor, c.actor)}  {c.action}"
            for c in detail.history
        ]
        self.query_one("#provenance-foot", Static).update(
            Content("History: " + " · ".join(changes))
        )

    def _episodes_around(self, evidence: tuple[EvidenceView, ...]) -> list[EvidenceView]:
        """The episodes that summarise the cited messages (not already cited themselves)."""
        from assistant.admin import EvidenceView

        cited = {view.ref_id for view in evidence if view.kind == "message"}
        seen = {view.ref_id for view in evidence if view.kind == "episode"}
        found = []
        for session_id in dict.fromkeys(v.session_id for v in evidence if v.kind == "message"):
            if session_id is None:
                continue
            for episode in self.engine.admin.browse.session_episodes(session_id):
                if episode.id not in seen and cited.intersection(episode.message_ids):
                    seen.add(episode.id)
                    text = (
                        f"{episode.title}: {episode.summary}" if episode.title else episode.summary
                    )
                    found.append(EvidenceView("episode", episode.id, "", text, episode.ended_at,
                                              session_id, "episode it is in"))  # fmt: skip
        return found

    def _show_reply(self) -> None:
        assert self.reply_id is not None
        # Highest score first: what weighed most on the reply (# is the prompt's order).
        used = sorted(
            self.engine.admin.browse.memories_used(self.reply_id),
            key=lambda memory: memory.use.score,
            reverse=True,
        )
        reply = self.engine.admin.browse.message(self.reply_id)
        self.sub_title = f"Memories used for the reply of {stamp(reply.created_at)}"
        self.query_one("#provenance-head", Static).update(
            Content.assemble(("Reply: ", "bold"), clip(reply.content, 300))
        )
        self.rows = {key: memory.item for key, memory in enumerate(used)}
        self.query_one("#provenance-title", Static).update(
            Content(
                f"{len(used)} memor{'y' if len(used) == 1 else 'ies'} went into this reply "
                "(score = relevance, recency and importance combined) · Enter opens one"
                if used
                else "No memories went into this reply."
            )
        )
        self.query_one("#provenance-table", RecordTable).show(
            (key, _use_cells(memory)) for key, memory in enumerate(used)
        )
        self.query_one("#provenance-foot", Static).update(
            Content(
                "Relevance: keyword and meaning match to your message; recency: how fresh; "
                "importance: 1-10, set when it was stored."
            )
        )

    @on(RecordTable.RowSelected, "#provenance-table")
    def _open(self, event: RecordTable.RowSelected) -> None:
        event.stop()
        view = self.rows.get(int(event.row_key.value or 0))
        if view is None:
            return
        if view.kind == "fact" and not view.missing:
            self.app.push_screen(ProvenanceScreen(self.engine, fact_id=view.ref_id), self._opened)
        elif view.session_id is not None:
            from ui.screens.session_view import SessionViewScreen

            message_id = view.ref_id if view.kind == "message" else None
            place = Place(view.session_id, message_id)
            self.app.push_screen(SessionViewScreen(self.engine, place), self._opened)
        else:
            self.notify(f"This {view.kind} has no session to open.", markup=False)

    def _opened(self, place: Place | None) -> None:
        if place is not None:
            self.dismiss(place)

    def action_close(self) -> None:
        """Go back."""
        self.dismiss(None)


def _use_cells(memory: UsedMemory) -> tuple[str, ...]:
    use = memory.use
    return (
        str(use.rank + 1), use.section, use.kind, _evidence_text(memory.item),
        f"{use.score:.2f}", f"{use.relevance:.2f}", f"{use.recency:.2f}", f"{use.importance:g}",
    )  # fmt: skip


def _evidence_text(view: EvidenceView) -> str:
    if view.missing:
        return f"(gone: this {view.kind} was deleted)"
    if view.quote and " ".join(view.quote.split()) != " ".join(view.text.split()):
        return f"“{clip(view.quote, 120)}” in: {clip(view.text, 200)}"
    return clip(view.text, 300)
