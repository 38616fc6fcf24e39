"""The nightly consolidation: backup, episodes, extraction, update, reflection, hygiene.

Each step works in units (a session, a candidate batch) whose writes and progress mark
commit together in one short transaction, so the chat keeps writing meanwhile and a run
stopped at any point (a crash, the call cap, Ollama gone) leaves only whole units done;
the next run picks up the rest and ends where one clean run would have.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.errors import HippoError
from assistant.integrity import require_intact
from assistant.memory.sleep_runs import RunStore
from assistant.sleep.backup import backup_database, compact_file
from assistant.sleep.context import SleepContext
from assistant.sleep.deps import SleepDeps
from assistant.sleep.episodes import summarise_sessions
from assistant.sleep.errors import BudgetExhausted, SleepLocked
from assistant.sleep.extract import extract_sessions
from assistant.sleep.hygiene import hygiene
from assistant.sleep.lock import SleepLock
from assistant.sleep.model import Asker
from assistant.sleep.options import RunOptions
from assistant.sleep.reflect import reflect
from assistant.sleep.report import Progress, SleepReport
from assistant.sleep.settings import SleepSettings
from assistant.sleep.update import update_facts
from data_schema.snapshot import copy_into

if TYPE_CHECKING:
    from assistant.memory.sleep_records import RunStatus

__all__ = ["STEPS", "run_sleep"]

Step = Callable[[SleepContext, int], None]
STEPS: tuple[tuple[str, Step], ...] = (
    ("episodes", summarise_sessions),
    ("extract", extract_sessions),
    ("update", update_facts),
    ("reflect", reflect),
)
_UNFINISHED = ("running", "interrupted", "capped", "failed")  # "running": its process died


def run_sleep(deps: SleepDeps, options: RunOptions | None = None) -> SleepReport:
    """Consolidate every profile of the data file; return the run's report.

    Args:
        deps: the data file, stores, gateway, clock and models.
        options: how the run goes (see `RunOptions`; default: a manual run now, with a
            backup first).

    Returns:
        The report; its status is ``locked`` (and nothing ran) when another process
        consolidates this file right now.

    Raises:
        DamagedFile: the data file fails SQLite's integrity check (nothing ran).
    """
    options = options or RunOptions()
    trigger, progress, tz = options.trigger, options.progress, options.tz
    backup = True if options.backup is None else options.backup
    settings = options.settings or SleepSettings()
    if options.max_llm_calls is not None:
        settings = settings.with_changes(max_llm_calls=options.max_llm_calls)
    now = options.now or deps.clock.now()
    # Consolidating a damaged file reads broken rows and writes on top of them: refuse.
    require_intact(deps.db.conn, deps.db.path)
    if options.dry_run:
        return _dry_run(deps, settings, now, trigger, progress, tz)
    lock = SleepLock(deps.locks, deps.clock, settings.lock_ttl_s)
    try:
        lock.acquire()
    except SleepLocked as exc:
        return SleepReport(None, "locked", trigger, False, now, errors=[str(exc)])
    try:
        return _run(deps, settings, now, trigger, progress, tz, lock=lock, backup=backup)
    finally:
        lock.release()


def _dry_run(
    deps: SleepDeps,
    settings: SleepSettings,
    now: datetime,
    trigger: str,
    progress: Callable[[Progress], None] | None,
    tz: tzinfo | None,
) -> SleepReport:
    with tempfile.TemporaryDirectory(prefix="hippo-dry-run-") as folder:
        copy = Path(folder) / "hippo.db"
        copy_into(deps.db.conn, copy)
        with deps.copy(copy) as twin:
            report = _run(
                twin, settings, now, trigger, progress, tz, lock=None, backup=False, dry_run=True
            )
    report.dry_run, report.run_id = True, None
    return report


def _run(
    deps: SleepDeps,
    settings: SleepSettings,
    now: datetime,
    trigger: str,
    progress: Callable[[Progress], None] | None,
    tz: tzinfo | None,
    *,
    lock: SleepLock | None,
    backup: bool,
    dry_run: bool = False,
) -> SleepReport:
    started = time.perf_counter()
    runs = deps.runs
    report = SleepReport(None, "running", trigger, dry_run, now)
    store = deps.marks
    previous = runs.latest()
    with store.unit():
        runs.interrupt_running()  # we hold the lock: any "running" run died
        report.run_id = runs.start(report, lock.owner if lock else "dry-run")
    model = settings.model or deps.models.chat
    asker = Asker(
        deps.gateway,
        model,
        max_calls=settings.max_llm_calls,
        think=False if "thinking" in deps.models.capabilities(model) else None,
        # The chat's window for the chat model (Ollama need not reload it), never more
        # than the model reads.
        options=deps.models.options(model),
        on_call=lock.beat if lock else None,
    )
    ctx = SleepContext(
        deps,
        settings,
        store,
        deps.candidates,
        deps.fact_reads,
        asker,
        report,
        now,
        tz,
        lock,
        progress,
    )
    try:
        if backup:
            _backup(ctx, previous)
        report.status = _steps(ctx)
    except HippoError as exc:  # Ollama gone, the lock lost, the backup impossible...
        report.status = "failed"
        ctx.error("run", str(exc))
    except BaseException as exc:
        report.status = "failed" if isinstance(exc, Exception) else "interrupted"
        ctx.error("run", f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _finish(ctx, runs, started)
    return report


def _backup(ctx: SleepContext, previous: SleepReport | None) -> None:
    resumed = previous is not None and previous.status in _UNFINISHED and previous.backup_path
    if resumed and previous is not None and Path(previous.backup_path).exists():
        ctx.report.backup_path = previous.backup_path  # the night it resumes is backed up
        return
    path = backup_database(ctx.deps.db.conn, ctx.deps.db.path, ctx.now, ctx.settings.keep_backups)
    ctx.report.backup_path = str(path)


def _steps(ctx: SleepContext) -> RunStatus:
    profiles = [p.id for p in ctx.deps.messages.profiles()]
    status: RunStatus = "done"
    try:
        for name, step in STEPS:
            before = ctx.asker.use.calls
            try:
                for profile_id in profiles:
                    step(ctx, profile_id)
            finally:
                ctx.count(f"llm_calls_{name}", ctx.asker.use.calls - before)
            ctx.steps_done.append(name)
    except BudgetExhausted as exc:
        status = "capped"
        ctx.error("budget", str(exc))
    for profile_id in profiles:  # no model calls: runs even when the cap stopped the rest
        hygiene(ctx, profile_id)
    ctx.steps_done.append("hygiene")
    compact_file(ctx)
    return _verdict(ctx, status)


_FAILURES = ("summarise_failed", "extract_failed", "update_failed", "reflect_failed")
_SUCCESSES = (
    "sessions_summarised",
    "sessions_partly_summarised",
    "sessions_extracted",
    "reflections_run",
    "candidates_added",
)


def _verdict(ctx: SleepContext, status: RunStatus) -> RunStatus:
    """``failed`` for a run in which the model failed every step it was asked to do.

    Such a run consolidated nothing; it must not read as done.
    """
    counts = ctx.report.counts
    failed = sum(counts[key] for key in _FAILURES)
    if status != "done" or not failed or any(counts[key] for key in _SUCCESSES):
        return status
    ctx.error(
        "run",
        f"the model {ctx.asker.model} gave no usable answer ({ctx.asker.use.malformed} "
        "malformed): nothing was consolidated. A larger model may do better: set it with "
        "`hippo model use --chat NAME` or `model` under [sleep] in config.toml.",
    )
    return "failed"


def _finish(ctx: SleepContext, runs: RunStore, started: float) -> None:
    report, use = ctx.report, ctx.asker.use
    report.finished_at = ctx.deps.clock.now()
    report.seconds = time.perf_counter() - started
    report.llm_seconds = use.seconds
    report.llm_calls = use.calls
    report.prompt_tokens = use.prompt_tokens
    report.completion_tokens = use.completion_tokens
    report.counts["embed_calls"] = use.embed_calls
    report.counts["clean_answers"] = use.clean
    report.counts["malformed_answers"] = use.malformed
    report.counts["repaired_answers"] = use.repaired
    report.counts["dropped_items"] = use.dropped_items
    runs.save(report)
