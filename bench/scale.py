"""Context-assembly latency, file size and approximate-search recall as the archive grows.

Builds (once, cached under bench/out/) a file of N synthetic messages in two profiles
(90% in the one queried): varied text (each of 300 topics has its own Zipf-distributed
vocabulary over a 30k-word lexicon, plus common words; 8% of messages Chinese), indexed
as ``MessageStore`` indexes them (date, speaker, neighbours' words), and clustered
384-d unit vectors (topic centroid plus noise, as MiniLM-like embeddings cluster),
written through ``VectorStore.store``. Then times ``Hippo.recall`` (query embedding
excluded) for queries made from a stored message's words and a noisy copy of its
vector, reports p50/p95 for the message tier alone and for all tiers (wall clock, and
the message tier's CPU time: on a shared machine the wall clock mostly measures the
neighbours), and for a whole turn's context (``Hippo.context_for``: every tier, the
session's working memory, the budgeted sections; ``ctx_*``, wall clock and CPU), the
cells a large table has and how long the background work took to make them (``cells_s``
wall, ``cells_cpu_s`` CPU: a file whose cells predate the square-root rule gets new ones
on first measurement), the file size and what its bytes hold per message (text,
keyword index, vectors, cells, other: dbstat, free pages in other), the process's peak
memory, and the recall of ``VectorStore.nearest``'s approximate search
against exact search (top 10 and top 50).

A large table is searched through cells (see ``assistant.memory.vector_cells``) that
the app's background work builds; the build does the same, and a file built before
cells existed gets them on first measurement (``cells_s``: how long that took).

The build runs in a child process, so the peak memory is that of querying.

``--encryption`` measures each size on compacted copies of the same file: one plaintext,
one encrypted as Hippo encrypts the data file (AEGIS-256, with a fixed bench key) and one
under the cipher older Hippos used (ChaCha20-Poly1305), and prints how each encrypted copy
compares with the plaintext one (context assembly p95, file size).

Usage: python bench/scale.py [--messages 10000 100000 1000000] [--queries 200] [--rebuild]
                             [--encryption [--ciphers aegis chacha20]]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw
import numpy as np

from assistant.clock import ManualClock, to_iso
from assistant.datakey import KeyStore
from assistant.engine import Hippo
from assistant.llm.values import ModelInfo
from assistant.memory import vector_cells
from assistant.memory.messages import MessageStore
from assistant.memory.records import Message
from assistant.memory.textindex import index_text
from assistant.memory.vector_cells import CellSizes
from assistant.memory.vectors import PendingText
from data_schema.cipher import CIPHERS, NoEncryption, cipher_of, copy_into, file_state
from data_schema.connect import Database

DIM = 384
MODEL = "random-384"
OUT = Path(__file__).resolve().parent / "out"
# The bench's files never touch the user's keyring: a fixed key for the encrypted copies.
BENCH_KEYS = KeyStore(OUT, environ={"HIPPO_DB_KEY": "b3" * 32})
VERSION = 3  # bump when the synthetic data or how it is stored changes
TOPICS = 300
_SYLLABLES = (
    "ka lo mi ne su ra ti po be da fe gu hi jo ku le ma no pe qu si to vu wa xe yo zu".split()
)
_COMMON = (
    "the a and to of I you it is was that for on with we my your but so just about "
    "what when how can do did have had will would think really maybe yes no ok thanks "
    "today yesterday tomorrow week weekend morning evening work home time good great"
).split()
_CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]


class RandomVectors:
    """An ``llm`` whose ``embed`` returns random unit vectors (for the engine's setup)."""

    def __init__(self, seed: int = 7) -> None:
        self._rng = np.random.default_rng(seed)
        # When set, every text embeds to this vector (a query's, computed beforehand).
        self.fixed: list[float] | None = None

    def embed(
        self, model: str, texts: Sequence[str], *, purpose: str = "document", batch_size: int = 32
    ) -> list[list[float]]:
        if self.fixed is not None:
            return [self.fixed for _ in texts]
        v = self._rng.standard_normal((len(texts), DIM)).astype("f4")
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).tolist()

    def show(self, model: str) -> ModelInfo:
        """A model of the default context, as Ollama's /api/show would describe it."""
        return ModelInfo(model, capabilities=frozenset({"completion", "embedding"}))

    def abort(self) -> None:
        """Nothing is ever in flight (the engine stops calls in flight when it closes)."""

    def close(self) -> None:
        """Nothing to close."""


def _lexicon(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _corpus(n: int, seed: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Texts, topic of each, and the topic centroids."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    lexicon = _lexicon(rng, 30_000)
    vocab = [rng.sample(lexicon, 80) for _ in range(TOPICS)]
    zh_vocab = [rng.sample(_CJK, 60) for _ in range(TOPICS)]
    zipf = np.array([1 / (r + 1) for r in range(80)])
    zipf /= zipf.sum()
    topic_of = nrng.integers(0, TOPICS, n)
    lengths = nrng.integers(4, 30, n)
    texts = []
    for i in range(n):
        t = int(topic_of[i])
        if nrng.random() < 0.08:
            picks = nrng.choice(60, size=int(lengths[i]), p=zipf[:60] / zipf[:60].sum())
            texts.append("".join(zh_vocab[t][p] for p in picks) + "。")
            continue
        picks = nrng.choice(80, size=int(lengths[i]), p=zipf)
        words = [
            vocab[t][p] if nrng.random() < 0.6 else _COMMON[int(nrng.integers(len(_COMMON)))]
            for p in picks
        ]
        texts.append(" ".join(words) + ".")
    centroids = nrng.standard_normal((TOPICS, DIM)).astype("f4")
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    return texts, topic_of, centroids


def _vectors(topic_of: np.ndarray, centroids: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    noise = rng.standard_normal((len(topic_of), DIM)).astype("f4")
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    v = centroids[topic_of] + 1.2 * noise
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(path: Path, n: int, seed: int = 7, per_session: int = 40) -> None:
    """Write ``n`` messages (and their vectors) to a new file at ``path``."""
    texts, topic_of, centroids = _corpus(n, seed)
    vectors = _vectors(topic_of, centroids, seed)
    clock = ManualClock()
    clock.advance(days=-max(1, n // per_session))
    db = Database(path, NoEncryption())
    conn = db.conn
    store = MessageStore(lambda: db.conn, clock)
    profiles = [store.profile("default").id, store.profile("other").id]
    rng = random.Random(seed)
    rows, fts, owners = [], [], []
    with conn:
        for start in range(0, n, per_session):
            pid = profiles[0] if rng.random() < 0.9 else profiles[1]
            session = store.create_session(pid, started_at=clock.now())
            ids = list(range(start, min(start + per_session, n)))
            for j, i in enumerate(ids):
                at = clock.now()
                role = "user" if j % 2 == 0 else "assistant"
                rows.append(
                    (i + 1, pid, session.id, role, texts[i], to_iso(at), len(texts[i]) // 4)
                )
                body = f"{at.day} {at:%B %Y} " + texts[i]
                around = [texts[k] for k in (i - 1, i + 1) if k in ids]
                fts.append((i + 1, index_text(body), index_text("\n".join(around))))
                owners.append(pid)
                clock.advance(seconds=rng.randint(5, 120))
            clock.advance(hours=rng.randint(4, 30))
        conn.executemany(
            "INSERT INTO messages(id, profile_id, session_id, role, content, created_at, tokens)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany("INSERT INTO messages_fts(rowid, body, context) VALUES (?, ?, ?)", fts)
    db.close()
    engine = Hippo(
        Database(path, NoEncryption()),
        RandomVectors(),  # type: ignore[arg-type]
        chat_model="none",
        embedding_model=MODEL,
        clock=clock,
    )
    model = engine.memory.vectors.ensure_model(engine.memory.embedder.vector_key, DIM)
    # As a file grows: its vectors get cells once there are enough of them (the app's
    # background work builds them), and the ones after go straight into the cells.
    cells_from = min(n, CellSizes().min_rows)
    for start, stop in ((0, cells_from), (cells_from, n)):
        for first in range(start, stop, 5000):
            batch = [
                PendingText("message", i + 1, owners[i], "", 0)
                for i in range(first, min(first + 5000, stop))
            ]
            engine.memory.vectors.store(model, batch, vectors[first : first + len(batch)].tolist())
        engine.memory.vectors.build_cells(model)
    engine.close()
    path.with_suffix(".queries.json").write_text(json.dumps(_queries(texts, vectors, 500, seed)))


def _queries(
    texts: list[str], vectors: np.ndarray, count: int, seed: int
) -> list[tuple[str, list[float]]]:
    """Questions made of a few words of a stored message, with a noisy copy of its vector."""
    n = len(texts)
    rng = np.random.default_rng(seed + 2)
    out = []
    for _ in range(count):
        i = int(rng.integers(n))
        words = texts[i].rstrip(".。").split()
        if len(words) > 1:
            picked = rng.choice(len(words), size=min(3, len(words)), replace=False)
            text = "What did we say about " + " ".join(words[p] for p in sorted(picked)) + "?"
        else:
            s = int(rng.integers(max(1, len(words[0]) - 4)))
            text = f"我们说过{words[0][s : s + 4]}吗?"
        noise = rng.standard_normal(DIM).astype("f4")
        q = vectors[i] + 0.8 * noise / np.linalg.norm(noise)
        out.append((text, (q / np.linalg.norm(q)).tolist()))
    return out


def _bucket(table: str) -> str:
    """Which part of the split a table (or index, by its table) counts in."""
    if table == "messages":
        return "text"
    if "_fts" in table:
        return "keyword"
    if table.startswith(("vecpart_", "veccent_")) or table == "vector_cells":
        return "cells"
    if table.startswith("vec_"):
        return "vectors"
    return "other"


def storage_split(path: Path, n: int) -> dict[str, float]:
    """Bytes per message by what they hold (dbstat: every page of the file, free ones in other)."""
    from data_schema.connect import connect

    keys = BENCH_KEYS if file_state(path) == "encrypted" else NoEncryption()
    conn = connect(path, migrate=False, keys=keys)
    try:
        owner = dict(conn.execute("SELECT name, tbl_name FROM sqlite_master").fetchall())
        split = dict.fromkeys(("text", "keyword", "vectors", "cells", "other"), 0)
        for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            # sqlite-vec's and FTS5's shadow tables are named after their virtual table.
            split[_bucket(table)] += size
        (free,) = conn.execute("PRAGMA freelist_count").fetchone()
        (page,) = conn.execute("PRAGMA page_size").fetchone()
        split["other"] += free * page
    finally:
        conn.close()
    per = {f"{k}_b": round(v / n) for k, v in split.items()}
    per["total_b"] = round(sum(split.values()) / n)
    return per


def _copy(base: Path, cipher: str | None) -> Path:
    """A compacted copy of ``base``, under ``cipher`` (None: plaintext), made once per build."""

    target = base.with_name(f"{base.stem}-{cipher or 'plain'}.db")
    if target.exists() and target.stat().st_mtime >= base.stat().st_mtime:
        return target
    for old in OUT.glob(f"{target.name}*"):
        old.unlink()
    conn = apsw.Connection(str(base), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    try:
        if cipher is None:
            copy_into(conn, target)
        else:
            copy_into(conn, target, key=BENCH_KEYS.for_new_file(), cipher=cipher)
    finally:
        conn.close()
    return target


def _cipher(path: Path) -> str:
    """The cipher ``path`` is under ("no": plaintext), as the table shows it."""
    if file_state(path) != "encrypted":
        return "no"
    key = BENCH_KEYS.current()
    return (cipher_of(path, key) if key is not None else None) or "unknown"


def measure(
    n: int, queries: int, rebuild: bool, seed: int = 7, copy: str | None = None
) -> dict[str, float]:
    """Build (or reuse) a file of ``n`` messages and time ``queries`` recalls over it.

    Args:
        copy: None measures the built file itself (plaintext); "plain" a compacted
            plaintext copy of it, a cipher's name (`CIPHERS`) a compacted copy under it.
    """
    OUT.mkdir(exist_ok=True)
    base = OUT / f"scale-v{VERSION}-{n}.db"
    path = base
    build_s = 0.0
    if rebuild or not path.exists():
        for old in OUT.glob(f"{path.stem}.*"):
            old.unlink()
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, __file__, "--build", str(path), "--messages", str(n)], check=True
        )
        build_s = time.perf_counter() - started
    asked = json.loads(base.with_suffix(".queries.json").read_text())[:queries]
    if copy is not None:
        path = _copy(base, None if copy == "plain" else copy)
    keys = BENCH_KEYS if file_state(path) == "encrypted" else NoEncryption()
    started = time.perf_counter()
    engine = Hippo(
        Database(path, keys),
        RandomVectors(),  # type: ignore[arg-type]
        chat_model="none",
        embedding_model=MODEL,
        clock=ManualClock(),
    )
    open_s = time.perf_counter() - started
    model = engine.memory.vectors.model(engine.memory.embedder.vector_key)
    assert model is not None
    # The background work: cells for a file that predates them, new cells for one that
    # has outgrown its own (see vector_cells).
    started, cpu = time.perf_counter(), time.process_time()
    engine.memory.vectors.build_cells(model)
    cells_s, cells_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    key = vector_cells.searched(engine.memory.db.conn, model.table("message"))
    cells = vector_cells.cell_count(engine.memory.db.conn, key) if key else 0
    pid = engine.memory.profile.id
    t0 = time.perf_counter()
    engine.memory.recall(asked[0][0], kinds=("message",), limit=10, query_vector=asked[0][1])
    first_ms = (time.perf_counter() - t0) * 1000
    timings: dict[str, list[float]] = {
        "message": [],
        "all": [],
        "cpu": [],
        "context": [],
        "ctx_cpu": [],
    }
    for text, vector in asked:
        for label, kinds in (("message", ("message",)), ("all", None)):
            t0, c0 = time.perf_counter(), time.process_time()
            engine.memory.recall(text, kinds=kinds, limit=10, query_vector=vector)
            timings[label].append((time.perf_counter() - t0) * 1000)
            if label == "message":
                timings["cpu"].append((time.process_time() - c0) * 1000)
    # A whole turn's context (every tier, the session's working memory, the budget) for a
    # message in the newest session; the query "embeds" to its precomputed vector at once.
    session = engine.conversations.last_session()
    assert session is not None
    llm = engine.host.gateway
    assert isinstance(llm, RandomVectors)
    for text, vector in asked:
        llm.fixed = vector
        said = Message(0, session.id, "user", text, engine.clock.now())
        t0, c0 = time.perf_counter(), time.process_time()
        engine.context_for(session, said)
        timings["context"].append((time.perf_counter() - t0) * 1000)
        timings["ctx_cpu"].append((time.process_time() - c0) * 1000)
    llm.fixed = None
    # Approximate (as nearest() chooses for this table) against exact search.
    r10, r50, approx_ms, exact_ms = [], [], [], []
    for _, vector in asked[:50]:
        t0 = time.perf_counter()
        approx = engine.memory.vectors.nearest(model, "message", pid, vector, 50)
        approx_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        exact = engine.memory.vectors.nearest(model, "message", pid, vector, 50, exact=True)
        exact_ms.append((time.perf_counter() - t0) * 1000)
        a, e = [i for i, _ in approx], [i for i, _ in exact]
        r10.append(len(set(a[:10]) & set(e[:10])) / 10)
        r50.append(len(set(a) & set(e)) / 50)
    engine.close()

    def pct(xs: list[float], q: int) -> float:
        return round(statistics.quantiles(xs, n=100)[q - 1], 1)

    return {
        "messages": n,
        "encrypted": _cipher(path),
        "build_s": round(build_s, 1),
        "cells_s": round(cells_s, 1),
        "cells_cpu_s": round(cells_cpu_s, 1),
        "cells": cells,
        "open_s": round(open_s, 2),
        "first_ms": round(first_ms, 1),
        "p50_ms": pct(timings["message"], 50),
        "p95_ms": pct(timings["message"], 95),
        "cpu_p50_ms": pct(timings["cpu"], 50),
        "cpu_p95_ms": pct(timings["cpu"], 95),
        "all_p50_ms": pct(timings["all"], 50),
        "all_p95_ms": pct(timings["all"], 95),
        "ctx_p50_ms": pct(timings["context"], 50),
        "ctx_p95_ms": pct(timings["context"], 95),
        "ctx_cpu_p50": pct(timings["ctx_cpu"], 50),
        "ctx_cpu_p95": pct(timings["ctx_cpu"], 95),
        "vec_approx_ms": round(statistics.median(approx_ms), 1),
        "vec_exact_ms": round(statistics.median(exact_ms), 1),
        "ann_recall10": round(statistics.mean(r10), 3),
        "ann_recall50": round(statistics.mean(r50), 3),
        "file_mb": round(sum(p.stat().st_size for p in OUT.glob(f"{path.name}*")) / 2**20, 1),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        **storage_split(path, n),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached files")
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--encryption",
        action="store_true",
        help="measure a plaintext and an encrypted copy of each file, and compare them",
    )
    parser.add_argument(
        "--ciphers",
        nargs="+",
        choices=CIPHERS,
        default=list(CIPHERS),
        help="with --encryption: the encrypted copies to measure (default: all)",
    )
    args = parser.parse_args(argv)
    if args.build:
        build(args.build, args.messages[0])
        return 0
    cols = [
        "messages",
        "encrypted",
        "build_s",
        "cells_s",
        "cells_cpu_s",
        "cells",
        "first_ms",
        "p50_ms",
        "p95_ms",
        "cpu_p50_ms",
        "cpu_p95_ms",
        "all_p50_ms",
        "all_p95_ms",
        "ctx_p50_ms",
        "ctx_p95_ms",
        "ctx_cpu_p50",
        "ctx_cpu_p95",
        "vec_approx_ms",
        "vec_exact_ms",
        "ann_recall10",
        "ann_recall50",
        "file_mb",
        "peak_mb",
    ]
    split = ["messages", "text_b", "keyword_b", "vectors_b", "cells_b", "other_b", "total_b"]
    print(" ".join(f"{c:>13}" for c in cols))
    results = []
    variants: list[str | None] = ["plain", *args.ciphers] if args.encryption else [None]
    for n in args.messages:
        for copy in variants:
            r = measure(n, args.queries, args.rebuild and copy in (None, "plain"), copy=copy)
            results.append(r)
            print(" ".join(f"{r[c]:>13}" for c in cols), flush=True)
        if args.encryption:
            plain = results[-len(variants)]
            for enc in results[-len(variants) + 1 :]:
                print(_comparison(plain, enc), flush=True)
    print("bytes per message:")
    print(" ".join(f"{c:>13}" for c in split))
    for r in results:
        print(" ".join(f"{r[c]:>13}" for c in split))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def _comparison(plain: dict[str, float], enc: dict[str, float]) -> str:
    """How the encrypted copy compares with the plaintext one, as ratios."""

    def ratio(key: str) -> str:
        return f"{key} {enc[key] / plain[key]:.3f}x" if plain[key] else f"{key} n/a"

    keys = ("ctx_p50_ms", "ctx_p95_ms", "all_p95_ms", "p95_ms", "open_s", "file_mb")
    what = f"{enc['encrypted']}/plaintext at {plain['messages']}"
    return f"  {what}: " + ", ".join(map(ratio, keys))


if __name__ == "__main__":
    raise SystemExit(main())
