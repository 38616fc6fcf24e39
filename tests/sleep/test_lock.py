"""One consolidation at a time per data file, and a crash never leaves the lock stuck."""

from __future__ import annotations

import subprocess
import sys

import pytest

from assistant.memory.sleep_runs import LockTable
from assistant.sleep import SleepError, SleepLock, SleepLocked
from tests.sleep.helpers import sleep


def _lock(engine, clock, **kw):
    return SleepLock(LockTable(lambda: engine.memory.db.conn), clock, ttl_s=60, **kw)


def _dead_pid() -> int:
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(child.stdout)


def test_a_second_consolidation_is_refused_while_one_runs(engine, clock):
    with _lock(engine, clock, pid=1, host="elsewhere"):
        with pytest.raises(SleepLocked, match="Another consolidation"):
            _lock(engine, clock).acquire()
        report = sleep(engine)
        assert report.status == "locked" and report.run_id is None


def test_the_lock_is_free_again_after_a_run(engine, clock):
    sleep(engine)
    assert _lock(engine, clock).holder() is None


def test_a_lock_whose_heartbeat_stopped_is_taken_over(engine, clock):
    stale = _lock(engine, clock, pid=1, host="elsewhere")
    stale.acquire()
    clock.advance(seconds=61)

    fresh = _lock(engine, clock)
    fresh.acquire()

    assert fresh.holder().owner == fresh.owner
    with pytest.raises(SleepError, match="took over"):
        stale.beat()  # the old holder learns it lost the lock and stops


def test_a_lock_held_by_a_dead_process_on_this_machine_is_taken_over_at_once(engine, clock):
    _lock(engine, clock, pid=_dead_pid()).acquire()
    fresh = _lock(engine, clock)
    fresh.acquire()
    assert fresh.holder().pid == fresh.pid


def test_a_live_holder_keeps_the_lock_while_it_beats(engine, clock):
    holder = _lock(engine, clock, pid=1, host="elsewhere")
    holder.acquire()
    for _ in range(3):
        clock.advance(seconds=50)
        holder.beat()
        with pytest.raises(SleepLocked):
            _lock(engine, clock).acquire()
