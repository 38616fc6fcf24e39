"""In the app: a pasted message is pasted text, and the model's core edits wait in Review."""

from __future__ import annotations

from tests.fake_ollama import Reply
from tests.ui.helpers import (
    chat_ready,
    notified,
    open_inspector,
    sees,
    select_row,
    send,
    wait_until,
)
from ui import HippoApp
from ui.screens.inspector.review import ReviewPane

SIZE = (120, 36)


async def test_a_multi_line_paste_is_sent_as_pasted_text_and_a_short_one_as_typed(
    engine, config, fake_ollama
):
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Meeting notes:\nthe venue moved to Porto")
        await send(pilot, "thanks")
    users = [m for m in engine.conversations.history(app.chat.session_id) if m.role == "user"]
    assert [m.origin for m in users] == ["pasted", "typed"]


async def test_the_models_core_edit_is_announced_listed_and_approved_in_review(
    engine, config, fake_ollama
):
    fake_ollama.script(
        Reply(
            tool_calls=[
                {"name": "core_memory_append",
                 "arguments": {"label": "human", "content": "Prefers metric units"}}
            ]
        ),
        Reply(content="Noted."),
    )  # fmt: skip
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await chat_ready(pilot)
        await send(pilot, "I think in kilometres")
        await wait_until(
            pilot,
            lambda: notified(
                app, "Proposed for core memory: Prefers metric units (F4 → Review to approve)"
            ),
        )
        (proposal,) = engine.memory.core_proposals.pending(engine.memory.profile.id)
        await open_inspector(pilot, "review")
        pane = app.screen.query_one(ReviewPane)
        await select_row(pilot, pane.table, -proposal.id)
        await sees(pilot, "add to the human block: 'Prefers metric units'",
                   "Why it waits: proposed by the assistant", "I think in kilometres")  # fmt: skip
        await pilot.press("a")
        await wait_until(pilot, lambda: -proposal.id not in pane.table.selected_ids())
    assert (
        engine.memory.core.block(engine.memory.profile.id, "human").value == "Prefers metric units"
    )


async def test_a_core_edit_can_be_rejected_in_review(engine, config, fake_ollama):
    said = engine.memory.messages.add_message(
        engine.conversations.new_session().id, "user", "I play chess"
    )
    proposal = engine.memory.core_proposals.propose(
        engine.memory.profile.id,
        "human",
        "append",
        "Plays chess",
        message_id=said.id,
        reason="test",
    )
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "review")
        pane = app.screen.query_one(ReviewPane)
        await select_row(pilot, pane.table, -proposal.id)
        await pilot.press("r")
        await wait_until(pilot, lambda: -proposal.id not in pane.table.selected_ids())
    assert (
        engine.memory.core_proposals.get(proposal.id, engine.memory.profile.id).status == "rejected"
    )
    assert engine.memory.core.block(engine.memory.profile.id, "human").value == ""
