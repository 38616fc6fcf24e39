"""Missing models: offered for download, with real progress, cancel and skip."""

from __future__ import annotations

from textual.widgets import ProgressBar

from tests.ui.helpers import chat_ready, notified, sees, wait_until
from ui import HippoApp
from ui.screens import ChatScreen, PullScreen
from ui.widgets import PullRow

SIZE = (100, 30)


def _plan_embedder(fake_ollama, delay: float) -> None:
    fake_ollama.remove_model("embeddinggemma")
    fake_ollama.pull_plan(
        "embeddinggemma",
        layers=[300_000_000, 200_000_000, 121_875_417],
        delay=delay,
        capabilities=("embedding",),
        embedding_length=768,
    )


async def test_a_missing_model_is_pulled_with_progress_reaching_full(engine, config, fake_ollama):
    _plan_embedder(fake_ollama, delay=0.005)
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PullScreen))
        await sees(pilot, "Pull them now?", "embeddinggemma")
        row = app.screen.query_one(PullRow)
        assert row.model == "embeddinggemma"
        bar = row.query_one(ProgressBar)  # kept: the screen goes once the pull is done
        await pilot.click("#pull-start")
        await wait_until(pilot, lambda: row.state == "done", what="the pull to finish")
        assert bar.percentage == 1.0
        assert bar.total == 621_875_417
        assert "embeddinggemma:latest" in fake_ollama.models
        await chat_ready(pilot)  # the screen went on by itself
        await wait_until(pilot, lambda: notified(app, "Ready: embeddinggemma."))
    assert engine.host.missing_models() == []


async def test_a_pull_can_be_cancelled_and_the_screen_skipped(engine, config, fake_ollama):
    _plan_embedder(fake_ollama, delay=0.2)
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PullScreen))
        await sees(pilot, "Pull them now?")
        row = app.screen.query_one(PullRow)
        await pilot.press("p")
        await wait_until(pilot, lambda: row.state == "pulling")
        await pilot.click("#pull-cancel")
        await wait_until(pilot, lambda: row.state == "cancelled", what="the pull to stop")
        assert "embeddinggemma:latest" not in fake_ollama.models
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
