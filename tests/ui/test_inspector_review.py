"""The review queue: approve, edit then approve, reject, and all of a kind, by key."""

from __future__ import annotations

from textual.widgets import Input

from tests.ui.helpers import notified, open_inspector, sees, select_row, wait_until
from ui import HippoApp
from ui.screens.dialogs import ConfirmDialog, TextDialog
from ui.screens.inspector.review import ReviewPane

SIZE = (120, 36)


async def test_a_proposal_shows_its_evidence_and_what_it_would_replace(seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "review")
        pane = app.screen.query_one(ReviewPane)
        await select_row(pilot, pane.table, memories.facts["Manager is Tomás, 1:1s on Mondays"])
        await sees(pilot, "- before: Manager is Priya, 1:1s on Thursdays",
                   "+ after:  Manager is Tomás, 1:1s on Mondays", "Evidence (1):")  # fmt: skip


async def test_approve_reject_and_edit_then_approve(seeded, config):
    engine, memories = seeded
    conflict = memories.facts["Manager is Tomás, 1:1s on Mondays"]
    old = memories.facts["Manager is Priya, 1:1s on Thursdays"]
    proposal = memories.facts["Prefers meetings in the morning"]
    insight = memories.facts["Cares about health and routine"]
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "review")
        table = app.screen.query_one(ReviewPane).table
        await select_row(pilot, table, conflict)
        await pilot.press("a")
        await wait_until(pilot, lambda: conflict not in table.selected_ids())
        await select_row(pilot, table, proposal)
        await pilot.press("r")
        await wait_until(pilot, lambda: proposal not in table.selected_ids())
        await select_row(pilot, table, insight)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        app.screen.query_one(Input).value = "Cares about [health] and routine"
        await pilot.press("enter")
        await wait_until(pilot, lambda: insight not in table.selected_ids())
    assert engine.memory.facts.get(conflict).status == "active"
    assert engine.memory.facts.get(old).status == "superseded"
    assert engine.memory.facts.get(proposal).status == "rejected"
    approved = engine.memory.facts.get(insight)
    assert (approved.status, approved.statement) == ("active", "Cares about [health] and routine")


async def test_reject_all_of_a_kind_after_confirming(seeded, config):
    engine, memories = seeded
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "review")
        table = app.screen.query_one(ReviewPane).table
        await select_row(pilot, table, memories.facts["Prefers meetings in the morning"])
        new = sum(1 for item in engine.admin.review.queue() if item.proposal == "fact")
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: notified(app, f"Rejected {new} new proposal(s)."))
        left = {item.proposal for item in engine.admin.review.queue()}
        assert "fact" not in left and left == {"conflict", "reflection"}
        await wait_until(pilot, lambda: app.chat.status.review == 2, what="the status recount")
