"""Each way Ollama can fail, against `hippo ask`: the outcome and the time to a clear message.

A clear message is exit status 1 with a `hippo: ...` line and no traceback; a fault that
Hippo can work around (bad tool arguments) may also end in a reply (status 0). A command
still waiting at the cap is killed and reported as such.

Hippo's own waits for Ollama are shortened where its settings have them ([ollama]
connect/load/stall timeouts), so that a hung Ollama is judged against them rather than
the cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bench.reliability_lab import Lab, Run
from tests.fake_ollama import FAILURE_KINDS, Reply

__all__ = ["FaultOutcome", "run_faults"]

_TIMEOUT_S = 5.0  # what each of Hippo's timeouts is set to here, where it has them
# A fault of Ollama's reported as the data file failing sends the user the wrong way.
_MISLEADING = re.compile(r"data file .* could not be written")
_NOT_STORAGE = {"embedding dimension changes"}


@dataclass
class FaultOutcome:
    """How one fault ended."""

    fault: str
    outcome: str
    seconds: float | None
    clear: bool

    def line(self) -> str:
        took = f"{self.seconds:5.1f} s" if self.seconds is not None else "    -  "
        mark = "ok " if self.clear else "BAD"
        return f"  {mark} {self.fault:<26} {took}  {self.outcome}"


def _ask(lab: Lab, cap: float, text: str = "what do you remember?") -> Run:
    return lab.run("ask", text, timeout=cap)


def _judge(fault: str, run: Run, cap: float, *, reply_ok: bool = False) -> FaultOutcome:
    first = next((line for line in run.err.splitlines() if line.startswith("hippo: ")), "")
    if run.clear_failure and _MISLEADING.search(first) and fault in _NOT_STORAGE:
        return FaultOutcome(fault, f"misleading: {first[:100]}", run.seconds, False)
    if run.killed:
        return FaultOutcome(fault, f"no message within {cap:.0f} s (killed)", None, False)
    if run.traceback:
        return FaultOutcome(fault, "traceback", run.seconds, False)
    if run.clear_failure:
        return FaultOutcome(fault, first[:110], run.seconds, True)
    if run.rc == 0 and reply_ok:
        said = f"; said {first[:90]}" if first else ""
        return FaultOutcome(fault, f"handled: the reply came, rc 0{said}", run.seconds, True)
    said = first or run.err.strip()[:80] or "(nothing on stderr)"
    return FaultOutcome(fault, f"rc {run.rc}: {said[:100]}", run.seconds, False)


def _wrong_dimension(lab: Lab, cap: float) -> Run:
    """The embedding model answers in another dimension than its stored vectors."""
    lab.run("ask", "something to embed first", timeout=cap)  # vectors now exist
    spec = lab.ollama.embed_dim("embeddinggemma")
    lab.ollama.add_model(
        "embeddinggemma", capabilities=("embedding",), embedding_length=spec // 2,
        family="gemma3", context_length=2048,
    )  # fmt: skip
    try:
        return _ask(lab, cap)
    finally:
        lab.ollama.add_model(
            "embeddinggemma", capabilities=("embedding",), embedding_length=spec,
            family="gemma3", context_length=2048,
        )  # fmt: skip


def _bad_tool_arguments(lab: Lab, cap: float) -> Run:
    """Tool calls a small model gets wrong: wrong types, missing fields, a made-up tool."""
    lab.ollama.script(
        Reply(
            tool_calls=[
                {"name": "core_memory_append", "arguments": {"block": 42, "text": None}},
                {"name": "no_such_tool", "arguments": {"x": 1}},
                {"name": "recall_search", "arguments": {"start": "yesterday-ish"}},
            ]
        )
    )
    return _ask(lab, cap)


def _armed(kind: str) -> Callable[[Lab, float], Run]:
    def run(lab: Lab, cap: float) -> Run:
        lab.ollama.fail_next("/api/chat", kind)
        return _ask(lab, cap)

    return run


def _scripted(reply: Reply) -> Callable[[Lab, float], Run]:
    def run(lab: Lab, cap: float) -> Run:
        lab.ollama.script(reply)
        return _ask(lab, cap)

    return run


def _shorten_timeouts(lab: Lab) -> list[str]:
    """Set each of Hippo's waits for Ollama to a few seconds; return their names.

    Feature-detected: a checkout whose settings have no such waits returns [].
    """
    from assistant import config as settings

    config = lab.config()
    if hasattr(config, "ollama"):  # config.toml's sections as typed settings
        from dataclasses import replace

        names = ["connect_timeout", "load_timeout", "stall_timeout"]
        ollama = replace(config.ollama, **dict.fromkeys(names, _TIMEOUT_S))
        settings.save_config(replace(config, ollama=ollama))
        return names
    names = list(getattr(settings, "_TIMEOUTS", ()))
    if not names or not hasattr(config, "ollama_timeouts"):
        return []
    settings.save_config(config.with_changes(ollama_timeouts=dict.fromkeys(names, _TIMEOUT_S)))
    return names


def _silent(lab: Lab, cap: float) -> Run:
    """A server that accepts every request and answers none (a hung Ollama or proxy)."""
    if not hasattr(lab.ollama, "fall_silent"):
        lab.ollama.fail_next("/api/chat", "hang")  # an older fake: the chat alone hangs
        return _ask(lab, cap)
    lab.ollama.fall_silent()
    try:
        return _ask(lab, cap)
    finally:
        lab.ollama.answer_again()


_LONG = "a reply that goes on " * 20
FAULTS: list[tuple[str, Callable[[Lab, float], Run], bool]] = [
    ("HTTP 500", _armed("500"), False),
    ("junk JSON", _armed("junk"), False),
    ("closed mid-stream", _scripted(Reply(content=_LONG, fail="drop")), False),
    ("stalls mid-stream", _scripted(Reply(content=_LONG, chunk_size=8, hold_after=3)), False),
    ("never answers", _silent, False),
    ("bad tool arguments", _bad_tool_arguments, True),
    # Last: the model is given back its dimension after, which the next ask would notice.
    ("embedding dimension changes", _wrong_dimension, True),
]


def run_faults(cap: float, *, keep: bool = False) -> tuple[list[FaultOutcome], str]:
    """Each fault once, in a fresh data folder; return the outcomes and a note on timeouts."""
    outcomes = []
    lab = Lab("faults", keep=keep)
    try:
        lab.run("ask", "hello", timeout=cap)  # the file exists, the models are known
        names = _shorten_timeouts(lab)
        note = (
            f"Hippo's waits set to {_TIMEOUT_S:.0f} s: {', '.join(names)}; cap {cap:.0f} s"
            if names
            else f"Hippo's settings have no waits to shorten; each fault is capped at {cap:.0f} s"
        )
        for fault, provoke, reply_ok in FAULTS:
            if fault == "junk JSON" and "junk" not in FAILURE_KINDS:
                outcomes.append(FaultOutcome(fault, "not available in the fake", None, False))
                continue
            before = len(lab.ollama.requests)
            run = provoke(lab, cap)
            lab.ollama.release()  # let a held stream go, whatever became of its client
            outcome = _judge(fault, run, cap, reply_ok=reply_ok)
            # How many calls the command made: each one waits for Ollama on its own.
            outcome.outcome = f"[{len(lab.ollama.requests) - before} requests] {outcome.outcome}"
            outcomes.append(outcome)
        return outcomes, note
    finally:
        lab.close()
