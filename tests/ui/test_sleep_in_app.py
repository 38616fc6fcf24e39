"""The open app consolidates in the background: a scheduler, and "Sleep now"."""

from __future__ import annotations

from tests.ui.helpers import chat_ready, wait_until
from ui import HippoApp

SIZE = (100, 30)


async def test_the_app_starts_and_stops_the_sleep_scheduler(engine, config, fake_ollama):
    app = HippoApp(engine, config, schedule_sleep=True)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await wait_until(
            pilot,
            lambda: app._scheduler is not None and app._scheduler.running,
            what="the scheduler",
        )
        assert app._scheduler.next_run() is not None
        scheduler = app._scheduler
    assert not scheduler.running


async def test_sleep_now_runs_a_consolidation_and_clears_the_status(engine, config, fake_ollama):

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        app.action_sleep_now()
        await wait_until(pilot, lambda: engine.sleep.last_report() is not None, what="a sleep run")
        await wait_until(pilot, lambda: app.chat.status.sleep == "", what="the status to clear")
    assert engine.sleep.last_report().trigger == "manual"


async def test_reports_that_arrive_while_the_app_closes_are_dropped(engine, config, fake_ollama):
    # Sleep and the Ollama check report by message; one may land after the chat's
    # widgets are gone (quitting mid-sleep). It must not raise as the app closes.
    from assistant.errors import OllamaUnreachable

    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        app.action_sleep_now()
        await wait_until(pilot, lambda: engine.sleep.last_report() is not None, what="a sleep run")
        await app.chat.status.remove()  # as when the app closes
        app.post_message(HippoApp.SleepProgress("sleep: facts 1/2"))
        app.post_message(HippoApp.Slept(engine.sleep.last_report()))
        app.post_message(HippoApp.Probed(None, OllamaUnreachable("http://127.0.0.1:9")))
        await pilot.pause()
        assert isinstance(app.screen, type(app.chat))  # no onboarding for a closing app
