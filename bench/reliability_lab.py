"""The bench's laboratory: a data folder, the fake Ollama answering as a model would, the
real `hippo` command run as a child process, and an independent look at the data file.

The look at the file is written here, not taken from `hippo doctor`: a bench that judged
the code with the code's own checks would miss what those checks miss.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fake_ollama import FakeOllama, Reply  # noqa: E402

__all__ = ["BenchOllama", "Lab", "Run", "look", "mentions"]

_ID_LINE = re.compile(r"\[id (\d+)\] \S+ \S+ \S+ (user|assistant): (.*)")
_CANDIDATE = re.compile(r"^Candidate (\d+): ", re.MULTILINE)
# Tables whose rows are indexed in a contentless FTS5 table named <table>_fts, with the
# embedding-queue kind each is queued under.
_INDEXED = {
    "messages": "message",
    "events": "event",
    "chunks": "chunk",
    "episodes": "episode",
    "facts": "fact",
}


class BenchOllama(FakeOllama):
    """The fake Ollama, answering unscripted requests as a cooperative model would.

    Chat replies stream for a moment (so that a kill can land mid-reply); sleep's
    structured requests get one episode per transcript, one fact per user message (each
    citing real message ids) and "add" for each candidate, so that sleep writes episodes,
    facts and evidence.
    Scripted replies (`script`) still come first.
    """

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            scripted = bool(self._replies)
        if scripted:
            return super()._next_reply(body)
        return _cooperative(body)


def _cooperative(body: dict[str, Any]) -> Reply:
    text = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
    schema = body.get("format")
    if isinstance(schema, dict):
        wanted = set((schema.get("properties") or {}).keys())
        lines = [(int(i), role, said) for i, role, said in _ID_LINE.findall(text)]
        if "episodes" in wanted and lines:
            return Reply(content=json.dumps({"episodes": [_episode(lines)]}))
        if "facts" in wanted and lines:
            return Reply(content=json.dumps({"facts": _facts(lines)}))
        if "decisions" in wanted:  # every candidate is new: add it
            added = [
                {"candidate": int(n), "action": "add", "fact_id": 0}
                for n in _CANDIDATE.findall(text)
            ]
            return Reply(content=json.dumps({"decisions": added}))
        return Reply()  # a minimal instance of the schema
    users = [m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "user"]
    said = users[-1] if users else ""
    filler = " ".join(f"word{n}" for n in range(60))
    return Reply(content=f"Noted: {said}. {filler}", chunk_size=12, delay=0.004)


def _episode(lines: list[tuple[int, str, str]]) -> dict[str, Any]:
    first = next((said for _, role, said in lines if role == "user"), lines[0][2])
    return {
        "first_message_id": lines[0][0],
        "last_message_id": lines[-1][0],
        "title": first[:40],
        "summary": f"The user talked about {first[:100]}",
        "topics": [],
        "importance": 5,
        "dated_items": [],
    }


def _facts(lines: list[tuple[int, str, str]]) -> list[dict[str, Any]]:
    return [
        {
            "statement": f"The user said {said[:80]}",
            "subject": "user",
            "predicate": "said",
            "source": "user_stated",
            "message_ids": [number],
            "confidence": 0.9,
            "importance": 6,
        }
        for number, role, said in lines
        if role == "user"
    ][:5]


@dataclass
class Run:
    """One finished (or killed) `hippo` command."""

    argv: list[str]
    rc: int
    out: str
    err: str
    seconds: float
    killed: bool = False

    @property
    def clear_failure(self) -> bool:
        """Ended with status 1 and a `hippo:` message, and no traceback."""
        return self.rc == 1 and "hippo: " in self.err and "Traceback" not in self.err

    @property
    def traceback(self) -> bool:
        return "Traceback" in self.err


def _hippo() -> list[str]:
    found = Path(sys.executable).with_name("hippo")
    return [str(found)] if found.exists() else [sys.executable, "-m", "assistant.cli"]


class Lab:
    """A temporary data folder and config folder, and a fake Ollama serving them.

    Args:
        name: a label for the temporary folder.
        keep: leave the folder behind (its path is printed) for a look afterwards.
    """

    def __init__(self, name: str, *, keep: bool = False) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"hippo-bench-{name}-"))
        self.keep = keep
        self.ollama = BenchOllama()
        self.ollama.start()
        self.env = {
            **os.environ,
            "HIPPO_DATA_DIR": str(self.folder / "data"),
            "HIPPO_CONFIG_DIR": str(self.folder / "config"),
            "OLLAMA_HOST": self.ollama.host,
        }
        # Installed Hippo runs from compiled bytecode; a checkout that may not write it
        # would time the compiler instead of Hippo.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env.pop("HIPPO_OLLAMA_TOKEN", None)

    @property
    def db_path(self) -> Path:
        from assistant.config import DB_FILENAME

        return self.folder / "data" / DB_FILENAME

    def config(self) -> Any:
        """The `Config` the child processes run with."""
        from assistant.config import load_config

        old = {k: os.environ.get(k) for k in ("HIPPO_DATA_DIR", "HIPPO_CONFIG_DIR", "OLLAMA_HOST")}
        os.environ.update({k: self.env[k] for k in old})
        try:
            return load_config()
        finally:
            for key, value in old.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def start(self, *args: str, stdin: str | None = None) -> subprocess.Popen[str]:
        """Start `hippo ARGS...` in the background."""
        return subprocess.Popen(
            [*_hippo(), *args],
            env=self.env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, *args: str, timeout: float = 120.0, kill_after: float | None = None) -> Run:
        """Run `hippo ARGS...`; kill it with SIGKILL after ``kill_after`` s, or at ``timeout``."""
        started = time.perf_counter()
        child = self.start(*args)
        limit = timeout if kill_after is None else min(kill_after, timeout)
        killed = False
        try:  # read as it runs: a child whose output fills the pipe would wait on it forever
            out, err = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            child.kill()  # SIGKILL: no handler, no cleanup, as a crash or power cut
            killed = True
            out, err = child.communicate()
        return Run([*args], child.returncode, out, err, time.perf_counter() - started, killed)

    def close(self) -> None:
        self.ollama.stop()
        if self.keep:
            print(f"(kept {self.folder})")
        else:
            shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Look:
    """What an independent look at the data file found."""

    integrity: str = "ok"
    half_applied: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return self.integrity == "ok"


def _connect(path: Path) -> Any:
    """Open a Lab's data file as its commands do: with the key beside its config.toml.

    A Lab keeps data/ and config/ side by side; a checkout without encryption at rest
    (no ``assistant.datakey``) opens the file without a key.
    """
    from data_schema.connect import connect

    try:
        from assistant.datakey import KeyStore
    except ImportError:
        return connect(path, migrate=False)
    return connect(path, migrate=False, keys=KeyStore(path.parent.parent / "config"))


def look(path: Path) -> Look:
    """Check the file as SQLite sees it and as Hippo's tiers promise it.

    Half-applied is any row without what its write promises to come with: an indexed
    row missing from its keyword index (or an index entry with no row), a finished
    item neither embedded nor queued for it, a document without its chunks, a fact
    without evidence, evidence citing a missing message.
    """
    if not path.exists():
        return Look()
    conn = _connect(path)
    try:
        found = Look(integrity=str(conn.execute("PRAGMA integrity_check").fetchone()[0]))
        for label, sql in _half_applied_queries():
            count = conn.execute(sql).fetchone()[0]
            if count:
                found.half_applied.append(f"{count} {label}")
        return found
    finally:
        conn.close()


def _half_applied_queries() -> list[tuple[str, str]]:
    queries = []
    for table, kind in _INDEXED.items():
        # A reply still streaming is indexed when it ends; an empty one has no words.
        finished = (
            " AND t.status != 'streaming' AND trim(t.content) != ''" if table == "messages" else ""
        )
        queries += [
            (
                f"{table} missing from {table}_fts",
                f"SELECT count(*) FROM {table} t WHERE t.id NOT IN"
                f" (SELECT rowid FROM {table}_fts){finished}",
            ),
            (
                f"{table}_fts entries with no row",
                f"SELECT count(*) FROM {table}_fts WHERE rowid NOT IN (SELECT id FROM {table})",
            ),
            (
                f"{table} neither embedded nor queued",
                f"SELECT count(*) FROM {table} t WHERE 1{finished}"
                f" AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.kind = '{kind}'"
                "  AND e.item_id = t.id)"
                f" AND NOT EXISTS (SELECT 1 FROM embedding_queue q WHERE q.kind = '{kind}'"
                "  AND q.item_id = t.id)",
            ),
        ]
    return [
        *queries,
        (
            "documents without chunks",
            "SELECT count(*) FROM documents d WHERE NOT EXISTS"
            " (SELECT 1 FROM chunks c WHERE c.document_id = d.id)",
        ),
        (
            "facts without evidence",
            "SELECT count(*) FROM facts f WHERE NOT EXISTS"
            " (SELECT 1 FROM fact_evidence e WHERE e.fact_id = f.id)",
        ),
        (
            "evidence citing a missing message",
            "SELECT count(*) FROM fact_evidence e WHERE e.kind = 'message'"
            " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.ref_id)",
        ),
        (
            "episodes without their messages",
            "SELECT count(*) FROM episodes p WHERE NOT EXISTS"
            " (SELECT 1 FROM episode_messages x WHERE x.episode_id = p.id)",
        ),
    ]


def mentions(path: Path, word: str) -> int:
    """Rows (and keyword-index entries) anywhere in the file that mention ``word``."""
    conn = _connect(path)
    try:
        like = f"%{word}%"
        total = 0
        for table, column in (
            ("messages", "content"),
            ("events", "text"),
            ("chunks", "content"),
            ("facts", "statement"),
            ("episodes", "summary"),
        ):
            total += conn.execute(
                f"SELECT count(*) FROM {table} WHERE {column} LIKE ?", (like,)
            ).fetchone()[0]
        for table in _INDEXED:
            total += conn.execute(
                f"SELECT count(*) FROM {table}_fts WHERE {table}_fts MATCH ?", (f'"{word}"',)
            ).fetchone()[0]
        return int(total)
    finally:
        conn.close()


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile (0-1) of ``values`` by nearest rank; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]
