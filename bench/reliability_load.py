"""Four writers on one data file: two `hippo log` loops, an `ask` loop and `sleep --now`.

Counts "database is locked"/busy errors and any other failure, then looks for every
write a command acknowledged. Times `hippo log` alone first, then under that load.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from bench.reliability_lab import Lab, Run, look, mentions, percentile

__all__ = ["LoadReport", "run_load", "time_log_alone"]

_LOCKED = ("database is locked", "is busy")


@dataclass
class LoadReport:
    """What four writers did to each other."""

    seconds: float = 0.0
    runs: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    lock_errors: int = 0
    tracebacks: int = 0
    acked: int = 0
    lost: int = 0
    integrity: str = ""
    half_applied: list[str] = field(default_factory=list)
    log_alone: list[float] = field(default_factory=list)
    log_loaded: list[float] = field(default_factory=list)
    samples: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        runs = ", ".join(f"{name} {n}" for name, n in self.runs.items())
        failed = ", ".join(f"{name} {n}" for name, n in self.failed.items()) or "none"
        lines = [
            f"four writers for {self.seconds:.0f} s (2x `hippo log`, `ask`, `sleep --now`):"
            f" {runs} runs",
            f'  "database is locked" errors: {self.lock_errors}; other failures: {failed};'
            f" tracebacks: {self.tracebacks}",
            f"  acknowledged writes lost: {self.lost} of {self.acked}",
            f"  integrity_check: {self.integrity}; half-applied:"
            f" {'; '.join(self.half_applied) or 'none'}",
            _latency("`hippo log` alone", self.log_alone),
            _latency("`hippo log` with the four writers", self.log_loaded),
        ]
        return lines + [f"  e.g. {sample}" for sample in self.samples[:3]]


def _latency(label: str, seconds: list[float]) -> str:
    if not seconds:
        return f"  {label}: no runs"
    p50, p95 = percentile(seconds, 0.5), percentile(seconds, 0.95)
    return f"  {label}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms ({len(seconds)} runs)"


class _Writers:
    def __init__(self, lab: Lab, report: LoadReport, until: float) -> None:
        self.lab = lab
        self.report = report
        self.until = until
        self.lock = threading.Lock()
        self.events: dict[int, str] = {}
        self.asks: list[str] = []

    def record(self, name: str, run: Run, expected: tuple[int, ...] = (0,)) -> None:
        with self.lock:
            self.report.runs[name] += 1
            if any(word in run.err.lower() for word in _LOCKED):
                self.report.lock_errors += 1
                self.report.samples.append(f"{name}: {run.err.strip()[:160]}")
            elif run.rc not in expected:
                self.report.failed[name] += 1
                self.report.samples.append(f"{name} rc {run.rc}: {run.err.strip()[:160]}")
            self.report.tracebacks += run.traceback

    def log_loop(self, name: str) -> None:
        while time.monotonic() < self.until:
            text = f"{name} {secrets.token_hex(4)}"
            run = self.lab.run("log", text)
            self.record(name, run)
            for line in run.out.splitlines():
                if line.startswith("Logged event "):
                    with self.lock:
                        self.events[int(line.split()[2])] = text
                        self.report.log_loaded.append(run.seconds)

    def ask_loop(self) -> None:
        while time.monotonic() < self.until:
            text = f"remember {secrets.token_hex(4)}"
            run = self.lab.run("ask", text)
            self.record("ask", run)
            if run.rc == 0 and f"Noted: {text}" in run.out:
                with self.lock:
                    self.asks.append(text)

    def sleep_loop(self) -> None:
        while time.monotonic() < self.until:
            # 3: another sleep holds the lock, which is no error; none runs here but this one.
            self.record("sleep", self.lab.run("sleep", "--now"), expected=(0, 3))


def time_log_alone(lab: Lab, runs: int) -> list[float]:
    """Seconds each of ``runs`` `hippo log` calls took with nothing else writing."""
    lab.run("log", "warm up")  # the first run creates the file and compiles bytecode
    return [lab.run("log", f"alone {n}").seconds for n in range(runs)]


def run_load(seconds: float, log_runs: int = 20, *, keep: bool = False) -> LoadReport:
    """Time `hippo log` alone, then run the four writers for ``seconds``."""
    report = LoadReport(seconds=seconds)
    lab = Lab("load", keep=keep)
    try:
        report.log_alone = time_log_alone(lab, log_runs)
        writers = _Writers(lab, report, time.monotonic() + seconds)
        threads = [
            threading.Thread(target=writers.log_loop, args=("log-a",)),
            threading.Thread(target=writers.log_loop, args=("log-b",)),
            threading.Thread(target=writers.ask_loop),
            threading.Thread(target=writers.sleep_loop),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        _count_lost(lab, writers, report)
        return report
    finally:
        lab.close()


def _count_lost(lab: Lab, writers: _Writers, report: LoadReport) -> None:
    from assistant.factory import open_engine

    engine = open_engine(lab.config())
    try:
        stored = engine.memory.events.get_many(list(writers.events))
    finally:
        engine.close()
    report.acked = len(writers.events) + len(writers.asks)
    report.lost = sum(
        event_id not in stored or stored[event_id].text != text
        for event_id, text in writers.events.items()
    )
    report.lost += sum(mentions(lab.db_path, text.split()[-1]) < 2 for text in writers.asks)
    found = look(lab.db_path)
    report.integrity = found.integrity
    report.half_applied = found.half_applied
