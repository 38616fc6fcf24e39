"""`hippo doctor`: what Hippo is using, and one line per problem."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assistant.config import Config
from assistant.errors import HippoError, OllamaError
from assistant.llm.names import same_model

if TYPE_CHECKING:
    import apsw

    from assistant.memory.script_probe import Embed as ProbeEmbed

Embed = Callable[[str, Sequence[str]], Sequence[Sequence[float]]]

__all__ = ["Report", "diagnose"]


@dataclass
class Report:
    """Facts to print (label, value) and problems (one line each, saying what to do)."""

    facts: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _check_file(config: Config, report: Report) -> None:
    from assistant.datakey import KeyStore
    from assistant.encryption import encryption_status
    from assistant.integrity import check_file
    from assistant.memory.profile_data.census import file_counts, sqlite_version
    from data_schema.connect import connect, sqlite_vec_version
    from data_schema.migrations import schema_version

    path = config.db_path
    report.facts.append(("data file", str(path)))
    keys = KeyStore.for_config(config)
    try:
        encrypted, origin = encryption_status(path, keys)
    except HippoError as exc:  # a key file or HIPPO_DB_KEY that holds no key
        report.problems.append(str(exc))
        return
    report.facts.append(("encrypted", encrypted))
    report.facts.append(("key from", origin))
    try:
        conn = connect(path, keys=keys)
    except HippoError as exc:
        report.problems.append(str(exc))
        return
    try:
        size = path.stat().st_size if path.exists() else 0
        report.facts.append(("file size", _human_size(size)))
        report.facts.append(("schema", schema_version(conn)))
        report.facts.append(("sqlite-vec", sqlite_vec_version(conn)))
        report.facts.append(("SQLite", sqlite_version(conn)))
        # First: counting rows of a damaged file fails on the damage, before saying what to do.
        if damage := check_file(conn, path):
            report.problems.append(damage)
            return
        if refusal := getattr(conn, "refusal", None):  # a full disk, a read-only folder
            report.problems.append(refusal)
        sessions, messages, waiting = file_counts(conn)
        report.facts.append(("sessions", str(sessions)))
        report.facts.append(("messages", f"{messages} ({waiting} items waiting for vectors)"))
        _check_consistency(conn, report)
        _check_given_up(conn, report)
    finally:
        conn.close()


def _check_consistency(conn: apsw.Connection, report: Report) -> None:
    from assistant.memory.profile_data.census import tier_disagreements

    broken = tier_disagreements(conn)
    report.facts.append(("consistency", "ok" if not broken else "; ".join(broken)))
    if broken:
        report.problems.append(
            "The memory tiers disagree (" + "; ".join(broken) + "). Nothing was changed; "
            "back up the file (`hippo db path` shows it) and report this with this output."
        )


def _check_given_up(conn: apsw.Connection, report: Report) -> None:
    """Sessions sleep gave up on: the model failed on them run after run."""
    from assistant.memory.profile_data.census import given_up

    rows = given_up(conn)
    if not rows:
        return
    what = {"summarise": "never summarised", "extract": "never had their facts extracted"}
    said = "; ".join(f"{n} session{'s' * (n != 1)} {what.get(step, step)}" for step, n in rows)
    report.facts.append(("given up by sleep", said))
    report.problems.append(
        f"Sleep gave up on conversations after the model's answers failed three runs in a row "
        f"({said}). A larger chat model consolidates better: choose one with "
        "`hippo model use --chat NAME`, or set `model` under [sleep] in config.toml."
    )


def _check_ollama(config: Config, report: Report) -> None:
    from assistant.factory import open_gateway

    gateway = open_gateway(config)
    source = "OLLAMA_HOST" if os.environ.get("OLLAMA_HOST") else "config/default"
    report.facts.append(("Ollama host", f"{gateway.host} (from {source})"))
    try:
        version = gateway.probe()
        models = {info.name: info for info in gateway.list_models()}
    except OllamaError as exc:
        report.facts.append(("reachable", "no"))
        report.problems.append(str(exc))
        return
    report.facts.append(("reachable", f"yes (Ollama {version})"))
    report.facts.append(("installed models", ", ".join(sorted(models)) or "none"))
    for role, name, need in (
        ("chat model", config.models.chat, "completion"),
        ("embedding model", config.models.embedding, "embedding"),
    ):
        info = next((i for n, i in models.items() if same_model(n, name)), None)
        if info is None:
            report.facts.append((role, f"{name} (missing)"))
            report.problems.append(
                f"The {role} '{name}' is not installed: run `hippo model pull {name}` "
                "or choose another with `hippo model use`."
            )
            continue
        caps = ", ".join(sorted(info.capabilities)) or "unknown"
        report.facts.append((role, f"{name} ({caps})"))
        if need == "completion" and info.capabilities and "tools" not in info.capabilities:
            report.facts.append(
                (
                    "memory tools",
                    f"off: {name} cannot use tools, so it answers without searching or "
                    "editing memory itself (a model with tools, e.g. qwen3, can)",
                )
            )
        if info.capabilities and need not in info.capabilities:
            report.problems.append(f"The {role} '{name}' can't do {need}: choose another.")
        elif need == "embedding":
            report.facts.append(("it reads", _reading(gateway.embed, name)))
            _check_vector_size(config, gateway.embed, info.name, report)


def _check_vector_size(config: Config, embed: Embed, model: str, report: Report) -> None:
    """Whether the stored vectors have the size ``model`` makes now (they can't be compared
    otherwise; Hippo re-embeds them when it next embeds)."""
    from assistant.clock import SystemClock
    from assistant.datakey import KeyStore
    from assistant.memory.vectors import VectorStore
    from data_schema.connect import connect

    try:
        conn = connect(config.db_path, keys=KeyStore.for_config(config))
    except HippoError:
        return  # reported with the file's facts
    try:
        stored = VectorStore(lambda: conn, SystemClock()).model(model)
    finally:
        conn.close()
    if stored is None:  # no vector made with it yet
        return
    dim = stored.dim
    try:
        (made,) = embed(model, ["How many numbers make a vector?"])
    except OllamaError as exc:
        report.facts.append(("vector size", f"{dim} stored; unknown now ({exc})"))
        return
    report.facts.append(("vector size", f"{dim} stored; {len(made)} made now"))
    if dim != len(made):
        report.problems.append(
            f"The embedding model {model} now makes vectors of {len(made)} numbers, but "
            f"the stored ones have {dim}: searching by meaning is off until they are "
            "made again. Run `hippo embed` to re-embed them now (the app also does it "
            "in the background)."
        )


def _reading(embed: ProbeEmbed, model: str) -> str:
    """How far ``model`` reads each probed script, in words (see ``memory.reading``)."""
    from assistant.memory.script_probe import PARAPHRASES, SCRIPT_NAMES, measure_trust

    verdicts, unread = [], []
    for script in PARAPHRASES:
        name = SCRIPT_NAMES.get(script, script)
        try:
            trust = measure_trust(embed, model, script)
        except OllamaError as exc:
            return f"unknown ({exc})"
        verdicts.append(f"{name}: " + ("yes" if trust >= 1 else f"{trust:.0%}" if trust else "no"))
        if trust <= 0:
            unread.append(name)
    said = "; ".join(verdicts)
    if unread:
        said += f"; searches in {' and '.join(unread)} match words, not meaning"
    return said


def diagnose(config: Config) -> Report:
    """Check the data file and the Ollama host; never raises for what it finds."""
    report = Report()
    _check_file(config, report)
    _check_ollama(config, report)
    return report
