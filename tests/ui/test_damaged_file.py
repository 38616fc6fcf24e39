"""The app says at once when its data file fails SQLite's integrity check, and what to restore."""

from __future__ import annotations

from assistant.errors import DamagedFile
from scheduler.runner import SleepScheduler
from tests.admin.helpers import START, chat
from tests.assistant.test_integrity import damage_an_index
from tests.ui.conftest import make_engine
from tests.ui.helpers import chat_ready, notified, wait_until
from ui import HippoApp

SIZE = (100, 30)


def _damaged(engine, config):
    chat(engine, START, "My sister Anna moved to Berlin.", "Lovely.")
    good = engine.admin.export.backup()
    engine.close()
    damage_an_index(config.db_path)
    return good


async def test_the_app_opens_then_warns_of_a_damaged_file(engine, config, fake_ollama):
    good = _damaged(engine, config)
    reopened = make_engine(config)
    app = HippoApp(reopened, config, schedule_sleep=True)
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await chat_ready(pilot)  # the chat is usable; the check runs in the background
            await wait_until(pilot, lambda: notified(app, f"hippo backup restore {good}"))
            await wait_until(pilot, lambda: notified(app, "Sleep will not consolidate it"))
    finally:
        reopened.close()


def test_the_scheduled_catch_up_refuses_and_reports_why(engine, config):
    _damaged(engine, config)
    reopened = make_engine(config)
    refused: list[Exception] = []
    scheduler = SleepScheduler(reopened, on_error=refused.append)
    try:
        assert scheduler._run(lambda engine, settings, progress: engine.consolidate()) is None
    finally:
        reopened.close()
    assert len(refused) == 1 and isinstance(refused[0], DamagedFile)
