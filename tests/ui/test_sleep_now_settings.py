""" "Sleep now" (the palette's and the Sleep tab's) runs with the user's ``[sleep]`` settings.

Regression (issue 11): both called ``consolidate()`` without settings, so config.toml's
``[sleep]`` (``max_llm_calls``, ``model``, ``auto_activate``, ...) was ignored there.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from assistant.factory import open_engine
from assistant.settings import SleepSettings
from tests.sleep.helpers import chat
from tests.ui.helpers import chat_ready, open_inspector, sees, wait_until
from ui import HippoApp

SIZE = (120, 36)


def _finished(engine) -> bool:
    report = engine.sleep.last_report()
    return report is not None and report.status != "running"


@pytest.fixture
def capped(config, clock):
    """An engine opened from a config whose ``[sleep]`` allows no model call at all."""
    config = replace(config, sleep=SleepSettings(max_llm_calls=0))
    engine = open_engine(config, clock=clock)
    chat(engine, clock.now() - timedelta(days=1), "I moved to Lisbon in May.", "Noted.")
    yield engine, config
    engine.close()


async def test_the_palettes_sleep_now_keeps_the_configured_call_cap(capped):
    engine, config = capped
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        app.action_sleep_now()
        await wait_until(pilot, lambda: _finished(engine), what="a finished sleep run")
    report = engine.sleep.last_report()
    assert (report.trigger, report.status, report.llm_calls) == ("manual", "capped", 0)


async def test_the_sleep_tabs_run_now_keeps_the_configured_call_cap(capped):
    engine, config = capped
    app = HippoApp(engine, config)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot, "sleep")
        await pilot.press("r")
        await sees(pilot, "Done:")
    report = engine.sleep.last_report()
    assert (report.trigger, report.status, report.llm_calls) == ("manual", "capped", 0)
