"""``hippo sleep run|preview|install-timer``: which run to make, and what it prints.

The consolidation itself is `assistant.sleep.pipeline.run_sleep`; this picks the run
the command line asked for, shows a progress bar on a terminal, and prints the report,
what was left for later, or where the nightly timer was written.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from assistant.errors import InvalidInput
from assistant.terminal import raw_stream

if TYPE_CHECKING:
    import argparse

    from assistant.config import Config
    from assistant.sleep.report import Progress, SleepReport
    from assistant.sleep.settings import SleepSettings

__all__ = ["EXIT_LOCKED", "ProgressBar", "print_report", "sleep_command"]

_WIDTH = 24
_DETAILS = 20  # per-session problem lines printed after the summary
EXIT_LOCKED = 3


class ProgressBar:
    """A one-line progress bar: ``episodes  [#########...............]  3/8``."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, progress: Progress) -> None:
        filled = _WIDTH * progress.done // max(progress.total, 1)
        bar = "#" * filled + "." * (_WIDTH - filled)
        raw_stream(self._out).write("\r")  # the bar's own cursor move; the rest is escaped
        self._out.write(f"{progress.step:<9} [{bar}] {progress.done}/{progress.total}   ")
        self._out.flush()

    def finish(self) -> None:
        """End the bar's line."""
        self._out.write("\n")


def print_report(report: SleepReport, out: TextIO) -> None:
    """Print a run's report: its summary, every problem, a dry run's proposals, the backup."""
    if report.status == "locked":
        print(f"hippo: {report.errors[0]}", file=sys.stderr)
        return
    print(report.summary(), file=out)
    details = report.details
    if details:  # the summary counts them by kind; each session's line, for who wants it
        print("Details:", file=out)
        for line in details[:_DETAILS]:
            print(f"  - {line}", file=out)
        if len(details) > _DETAILS:
            print(f"  - and {len(details) - _DETAILS:,} more", file=out)
    if report.dry_run:
        for p in report.proposals:
            old = f" (replaces fact {p.old_fact_id})" if p.old_fact_id else ""
            print(f"  {p.kind:<10} {p.status:<8} {p.statement}{old}", file=out)
    if report.backup_path:
        print(f"Backup: {report.backup_path}", file=out)


def sleep_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run ``hippo sleep`` as its verb and flags say; return the exit status."""
    from assistant.factory import open_engine

    settings = config.sleep
    if args.install_timer:
        return _install(args, settings, config, out)
    with open_engine(config) as engine:
        if getattr(args, "retry", False):
            retried = engine.sleep.retry_given_up()
            print(_retried(retried, engine.sleep.due_sessions(settings)), file=out)
            args.now = True
        if not (args.now or args.dry_run) and not engine.sleep.due(settings=settings):
            print(
                "Nothing is due: consolidation already ran since the last scheduled time "
                f"({settings.at}). Run `hippo sleep run --now` to run anyway.",
                file=out,
            )
            return 0
        bar = ProgressBar(out) if out.isatty() else None
        report = engine.consolidate(
            dry_run=args.dry_run,
            trigger="manual" if args.now or args.dry_run else "scheduled",
            progress=bar,
            max_llm_calls=args.max_llm_calls,
            settings=settings,
        )
        if bar is not None:
            bar.finish()
        print_report(report, out)
        if report.status != "locked":
            notes = engine.sleep.skipped_notes(settings)
            if notes:
                print("Left for later:", *(f"  - {note}" for note in notes), sep="\n", file=out)
    if report.status == "locked":
        return EXIT_LOCKED
    return 0 if report.status in ("done", "capped") else 1


def _retried(retried: int, due: int) -> str:
    """What ``--retry`` put back in line, beside what the run takes in all."""
    in_all = f"{due} session{'s' * (due != 1)} {'is' if due == 1 else 'are'} due now"
    if not retried:
        return f"No session was given up; {in_all}."
    return (
        f"{retried} session{'s' * (retried != 1)} given up before "
        f"{'is' if retried == 1 else 'are'} tried again; in all, {in_all}."
    )


def _install(args: argparse.Namespace, settings: SleepSettings, config: Config, out: TextIO) -> int:
    from assistant.sleep.command import install_nightly

    done = install_nightly(config, settings, getattr(args, "profile", None))
    if not done.trial_ok:
        failed = done.trial_said.removeprefix("hippo: ").rstrip(".")
        raise InvalidInput(
            "The nightly timer was not installed: its command, run once as the timer would "
            f"run it (without this shell's variables), failed: {failed}. "
            "Keep the key where the timer finds it (the keyring, or the key file beside "
            "config.toml, not HIPPO_DB_KEY alone), then run `hippo sleep install-timer` again."
        )
    for path in done.files:
        print(f"Wrote {path}", file=out)
    print(
        "Installed: its command ran once as the timer will run it, and went through "
        f"({done.trial_said}).",
        file=out,
    )
    print(f"Turn it on with:\n  {done.enable}", file=out)
    return 0
