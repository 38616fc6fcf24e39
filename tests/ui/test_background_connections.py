"""Background jobs leave no connection to the data file open once their thread is done."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import pytest

from tests.ui.helpers import chat_ready, wait_until
from ui import HippoApp

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _descriptors_on(path: Path) -> int:
    """How many of this process's file descriptors are open on ``path`` or its -wal file."""
    names = {str(path), f"{path}-wal"}
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            count += os.readlink(f"/proc/self/fd/{fd}") in names
    return count


def _counting(app: HippoApp) -> bool:
    return any(w.group == "pending" and not w.is_finished for w in app.workers)


async def test_counting_the_queues_every_few_seconds_keeps_no_connection_open(engine, config):
    # Each count runs in a thread of its own, with a connection of its own: every one
    # used to stay open (two file descriptors) as long as the app, so an app left open
    # for an afternoon ran out of them.
    app = HippoApp(engine, config)
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_ready(pilot)
        before = _descriptors_on(config.db_path)
        for _ in range(20):
            app.chat.status.refresh_pending()
            await wait_until(pilot, lambda: not _counting(app), what="the count to finish")
        # Room for five connections opening meanwhile, two descriptors each: a long-lived
        # thread's (the embedder's, say) and the few that ended threads leave for the
        # next ones; the twenty counts' would be forty descriptors.
        await wait_until(
            pilot,
            lambda: _descriptors_on(config.db_path) <= before + 10,
            what="the finished counts' connections to close",
        )
