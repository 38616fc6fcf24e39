"""The jobs are one-line calls into the engine's sleep functions, tested without APScheduler."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from datetime import timedelta

from scheduler import jobs


def test_each_job_is_a_single_call_into_assistant_sleep():
    for job in (jobs.nightly, jobs.catch_up_on_launch):
        body = ast.parse(inspect.getsource(job)).body[0].body  # type: ignore[attr-defined]
        statements = [s for s in body if not isinstance(s, ast.Expr)]  # the docstring aside
        assert len(statements) == 1 and isinstance(statements[0], ast.Return)


def test_the_nightly_job_runs_a_scheduled_consolidation(engine):
    report = jobs.nightly(engine)
    assert report.trigger == "scheduled" and report.status == "done"


def test_the_launch_job_catches_up_only_a_missed_night(engine, clock):
    then = clock.now() - timedelta(days=2)
    session = engine.memory.messages.create_session(engine.memory.profile.id, started_at=then)
    engine.memory.messages.add_message(session.id, "user", "hi", created_at=then, importance=1.0)
    assert jobs.catch_up_on_launch(engine).trigger == "catch_up"  # type: ignore[union-attr]
    assert jobs.catch_up_on_launch(engine) is None


def test_importing_the_scheduler_loads_neither_the_ui_nor_apscheduler_yet():
    code = (
        "import sys, scheduler;"
        "print(sorted(m for m in ('textual', 'ui', 'apscheduler', 'ollama') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
