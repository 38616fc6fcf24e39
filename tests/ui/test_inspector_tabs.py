"""Provenance (of a fact, of a reply), episodes, archive search, events and documents, sleep."""

from __future__ import annotations

from datetime import UTC, datetime

from textual.widgets import Input, Sparkline

from assistant.memory.records import Message, MessageHit
from assistant.memory.usage import MemoryUse
from tests.ui.helpers import (
    chat_ready,
    messages_shown,
    notified,
    open_inspector,
    sees,
    select_row,
    wait_until,
)  # fmt: skip
from ui import HippoApp
from ui.format import stamp
from ui.screens import ChatScreen, ProvenanceScreen
from ui.screens.dialogs import ConfirmDialog
from ui.screens.inspector.archive import ArchiveSearchPane, _how
from ui.screens.inspector.episodes import EpisodesPane
from ui.screens.inspector.events import EventsDocsPane
from ui.screens.inspector.facts import FactsPane
from ui.screens.inspector.pane import InspectorPane
from ui.screens.session_view import SessionViewScreen
from ui.widgets import MessageView, PromptInput, RecordTable, StatusLine

SIZE = (120, 36)


async def test_a_fact_leads_to_its_evidence_read_only_and_on_to_its_session(seeded, config):
    engine, memories = seeded
    fact_id = memories.facts["Lives in Alfama, Lisbon"]
    session_id = memories.sessions[0]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await app.chat.new_scoped("work")  # the chat the user is in, with its scope
        await open_inspector(pilot)
        await select_row(pilot, app.screen.query_one(FactsPane).table, fact_id)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ProvenanceScreen))
        await sees(pilot, f"Fact {fact_id}: Lives in Alfama, Lisbon", "you said",
                   "Evidence (1), and 1 episode(s)", "We finally moved into the flat")  # fmt: skip
        await pilot.press("enter")  # the evidence: its session, read-only, over the inspector
        await wait_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        await sees(pilot, "Read-only", "We finally moved into the flat")
        said = engine.memory.facts.get(fact_id).evidence[0].ref_id
        marked = app.screen.query(".-marked")
        assert [view.message_id for view in marked] == [said]  # type: ignore[attr-defined]
        await pilot.press("c", "m")  # a message's keys do nothing here
        assert not isinstance(app.focused, MessageView)
        assert app.chat.session_id is None and app.chat.scope == "work"  # untouched
        await pilot.press("escape")  # back where it was opened from
        await wait_until(pilot, lambda: isinstance(app.screen, ProvenanceScreen))
        await pilot.press("enter", "enter")  # open it again, and continue that chat
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        await wait_until(pilot, lambda: app.chat.session_id == session_id)
        await wait_until(pilot, lambda: notified(app, "Continuing"))
        await sees(pilot, "We finally moved into the flat")  # scrolled to it
        assert isinstance(app.focused, PromptInput)  # typing goes to the box
        await pilot.press("c", "m")
        await wait_until(pilot, lambda: app.chat.query_one(PromptInput).text == "cm")
        assert isinstance(app.screen, ChatScreen) and not notified(app, "Message copied")


async def test_a_reply_shows_the_memories_it_used_with_their_scores(seeded, config):
    engine, memories = seeded
    reply_id = memories.replies[-1]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await app.chat.open_session(engine.memory.messages.message(reply_id).session_id)
        reply = next(view for view in messages_shown(app) if view.message_id == reply_id)
        reply.focus()
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ProvenanceScreen))
        await sees(pilot, "3 memories went into this reply", "Is allergic to [peanuts]", "0.91")
        await pilot.press("enter")  # the fact: its own provenance
        allergy = memories.facts["Is allergic to [peanuts]"]
        await sees(pilot, f"Fact {allergy}: Is allergic to [peanuts]", "used in 1 reply")
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))


async def test_a_replys_memories_are_titled_by_its_time_and_listed_by_score(seeded, config):
    engine, memories = seeded
    reply_id = memories.replies[0]
    facts = [memories.facts[s] for s in ("Is allergic to [peanuts]", "Lives in Alfama, Lisbon")]
    engine.memory.usage.record(
        [MemoryUse(reply_id, "fact", facts[0], "facts", 0, 0.31, 0.3, 0.2, 5),
         MemoryUse(reply_id, "fact", facts[1], "facts", 1, 0.84, 0.8, 0.5, 7)]
    )  # fmt: skip
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        app.push_screen(ProvenanceScreen(engine, reply_id=reply_id))
        await sees(pilot, "2 memories went into this reply")
        table = app.screen.query_one(RecordTable)
        scores = [str(table.get_row_at(n)[4]) for n in range(table.row_count)]
        assert scores == ["0.84", "0.31"]  # the one that weighed most first
        assert f"reply {reply_id}" not in app.screen.sub_title  # no internal id
        assert app.screen.sub_title.startswith("Memories used for the reply of 20")


async def test_episodes_by_day_with_activity_charts_open_their_session(seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "episodes")
        pane = app.screen.query_one(EpisodesPane)
        await sees(pilot, "Sessions per day", "Memories learned per day", "Balcony plants")
        assert sum(pane.query_one("#sessions-chart", Sparkline).data or []) > 0
        pane.query_one(RecordTable).focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        await pilot.press("enter")  # continue that chat
        await wait_until(pilot, lambda: app.chat.session_id == memories.sessions[-1])


def test_archive_search_says_whether_meaning_took_part():
    said = Message(1, 1, "user", "我的护照三月到期", datetime(2026, 1, 1, tzinfo=UTC))
    assert _how([MessageHit(said, 1.0, 1.0)]) == "keyword"
    assert _how([MessageHit(said, 1.0, 1.0, 0.4)]) == "keyword + meaning"
    unread = MessageHit(said, 1.0, 1.0, 0.4, vector_trust=0.0)
    assert _how([unread]) == "keyword: the embedding model does not read this script"


async def test_archive_search_within_dates_opens_a_hit_in_its_session(seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "archive")
        pane = app.screen.query_one(ArchiveSearchPane)
        pane.query_one("#archive-from", Input).value = "2025-12-01"
        pane.query_one("#archive-query", Input).value = "Dagster pipeline"
        pane.query_one("#archive-query", Input).focus()
        await pilot.press("enter")
        await sees(pilot, "At work I'm migrating our ETL", "Dagster's asset model")
        await wait_until(pilot, lambda: app.screen.focused is pane.query_one(RecordTable))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        await pilot.press("enter")  # continue that chat
        await wait_until(pilot, lambda: app.chat.session_id == memories.sessions[4])
        await chat_ready(pilot)
        await app.chat.open_session(None)
        await open_inspector(pilot, "archive")  # waits for the keyboard to rest on the table
        pane = app.screen.query_one(ArchiveSearchPane)
        pane.query_one("#archive-until", Input).value = "2025-11-30"
        pane.query_one("#archive-query", Input).value = "Dagster"
        pane.query_one("#archive-query", Input).focus()
        await pilot.press("enter")
        await sees(pilot, "0 message(s) for 'Dagster'")


async def test_events_and_documents_can_be_removed(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "events")
        await sees(pilot, "Standup moved to 09:30", "Flat notes", "expired Dec 23")
        tables = app.screen.query_one(EventsDocsPane).query(RecordTable)
        events, documents = tables.first(), tables.last()
        events.focus()
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: events.row_count == 4)
        documents.focus()
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: documents.row_count == 0)
    assert engine.admin.browse.documents() == []


async def test_sleep_shows_the_last_report_and_runs_now_with_progress(seeded, config):
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "sleep")
        when = stamp(engine.sleep.last_report().started_at)
        await sees(pilot, f"Last run: {when} (scheduled), done", "Next nightly run")
        await pilot.press("r")
        await sees(pilot, "Done:")
        await wait_until(pilot, lambda: notified(app, "Memory consolidated"))
        await sees(pilot, "(manual)")


async def test_a_change_reported_as_the_app_closes_is_not_an_error(seeded, config):
    # Seen under load: a tab's "memory changed" reached the app after the chat's widgets
    # were gone, and recounting the review queue raised NoMatches as the app closed.
    engine, _ = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        inspector = await open_inspector(pilot, "sleep")
        pane = inspector.active_pane
    assert not app.chat.query(StatusLine)  # closed: the status line is gone
    app.on_inspector_pane_changed(InspectorPane.Changed(pane))
