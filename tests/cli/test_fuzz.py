"""Property: whatever arguments, stdin and paths `hippo` gets, it exits 0 or 1, prints no
traceback, and loses nothing it stored before (but what a command was asked to delete).

Every command and option but those that open the TUI or install a system timer is driven
in-process against the fake Ollama, with random text (any Unicode, and bytes that are not
UTF-8 as Python hands them over), numbers (NaN, infinities, 2**70...), and paths (devices,
pipes, link loops, folders, missing folders, binary files, odd names). Each example runs
on a fresh copy of one seeded data file, with its own config folder, so that examples are
independent and a failure shrinks to the smallest argv that shows it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import keyring
import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st
from keyring.backends import fail

from assistant.cli import main
from data_schema.connect import connect
from tests.cli.parsers import whole_parser
from tests.cli.stored import Keys, lost, rows_of, stored_rows

Draw = Callable[[st.SearchStrategy], object]

# Real argv can't hold NUL; everything else may come.
_CHARS = st.characters(blacklist_characters="\x00")
WORDS = ["", " ", "-", "--", "-x", "Anna", "carbonara", "Berlin", "work", "fact#1", "core#1"]
WORDS += ["2026-03-01", "0001-01-01T00:00+10:00", "9999-12-31T23:59-10:00", "qwen3:1.7b"]
NUMBERS = ["0", "1", "2", "3", "-1", "-5", "99", "nan", "inf", "-inf", "1e308", "0.5", "1_0"]
NUMBERS += [str(2**63 - 1), str(2**63), str(2**70), "²", "١", "0x10", "1e-320"]

texts = st.one_of(
    st.sampled_from(WORDS),
    st.text(_CHARS, max_size=30),
    st.binary(max_size=12).filter(lambda b: b"\x00" not in b).map(os.fsdecode),
)
numbers = st.one_of(
    st.sampled_from(NUMBERS),
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.floats().map(str),
    texts,
)
ids = st.one_of(st.integers(min_value=1, max_value=12).map(str), numbers)


PLACE = "<places>"  # replaced by each example's own folder of paths
PLACES = (
    *(f"{PLACE}/{name}" for name in ("note.md", "latin1.txt", "empty.txt", "binary.bin")),
    *(f"{PLACE}/{name}" for name in ("deep.json", "export.json", "folder", "pipe", "loop")),
    f"{PLACE}/missing.txt",
    f"{PLACE}/no/such/folder/out.json",
    f"{PLACE}/caf\udce9.json",  # a name that is not UTF-8, as Python hands it over
    PLACE,
)
places = st.sampled_from(PLACES)  # where to write: never outside the example's folder
read_places = st.sampled_from((*PLACES, "/dev/zero"))  # where to read from


def _make_places(root: Path, export: bytes) -> None:
    """Make one file, folder, pipe or link of every kind under ``root``."""
    root.mkdir()
    (root / "note.md").write_text("# Plans\n\nCall Anna about the June trip.")
    (root / "latin1.txt").write_bytes("Café crème".encode("latin-1"))
    (root / "empty.txt").write_text("")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (root / "export.json").write_bytes(export)
    folder = root / "folder"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha")
    (folder / "up").symlink_to("..")
    with open(os.fsencode(folder) + b"/caf\xe9.txt", "w") as file:
        file.write("odd name")
    os.mkfifo(root / "pipe")
    (root / "loop").symlink_to(root / "loop")


def _opt(draw: Draw, flag: str, values: st.SearchStrategy) -> list[str]:
    return [flag, draw(values)] if draw(st.booleans()) else []


def _memory(draw: Draw) -> list[str]:
    verb = draw(st.sampled_from(sorted(_MEMORY)))
    return ["memory", verb, *_MEMORY[verb](draw, places)]


def _filters(draw: Draw) -> list[str]:
    return [
        *_opt(draw, "--status", st.one_of(st.sampled_from(["pending", "active"]), texts)),
        *_opt(draw, "--scope", texts),
        *_opt(draw, "--source", texts),
        *_opt(draw, "--order", st.one_of(st.sampled_from(["recent", "relevance"]), texts)),
        *_opt(draw, "-n", numbers),
        *_opt(draw, "--page", numbers),
        *(["--json"] if draw(st.booleans()) else []),
    ]


_MEMORY: dict[str, Callable[[Draw, st.SearchStrategy], list[str]]] = {
    "list": lambda d, p: _filters(d),
    "search": lambda d, p: [d(texts), *(["--semantic"] if d(st.booleans()) else []), *_filters(d)],
    "show": lambda d, p: [d(ids)],
    "edit": lambda d, p: [
        d(ids),
        *_opt(d, "--statement", texts),
        *_opt(d, "--scope", texts),
        *_opt(d, "--importance", numbers),
    ],
    "pin": lambda d, p: [d(ids)],
    "unpin": lambda d, p: [d(ids)],
    "wrong": lambda d, p: [d(ids)],
    "outdated": lambda d, p: [d(ids)],
    "review": lambda d, p: d(st.lists(texts, max_size=1)),
    "approve": lambda d, p: [
        *d(st.lists(ids, max_size=1)),
        *_opt(d, "--all", texts),
        *_opt(d, "--statement", texts),
    ],
    "reject": lambda d, p: [*d(st.lists(ids, max_size=1)), *_opt(d, "--all", texts)],
    "history": lambda d, p: [*_opt(d, "-n", numbers), *_opt(d, "--kind", texts)],
    "undo": lambda d, p: [d(st.one_of(texts, ids))],
    "believed": lambda d, p: [*d(st.lists(texts, max_size=1)), "--as-of", d(texts)],
    "sessions": lambda d, p: [*_opt(d, "-n", numbers), *_opt(d, "--delete", ids)],
    "episodes": lambda d, p: [*_opt(d, "-n", numbers), *_opt(d, "--delete", ids)],
    "events": lambda d, p: [*_opt(d, "-n", numbers), *_opt(d, "--delete", ids)],
    "documents": lambda d, p: [*_opt(d, "-n", numbers), *_opt(d, "--delete", ids)],
    "rm": lambda d, p: [d(st.one_of(st.sampled_from(["fact", "event", "session"]), texts)), d(ids)],
    "core": lambda d, p: [],
    "activity": lambda d, p: _opt(d, "--days", numbers),
    "stats": lambda d, p: [],
    "forget": lambda d, p: [
        d(texts),
        *(["--yes"] if d(st.booleans()) else []),
        *_opt(d, "--backups", st.one_of(st.sampled_from(["scrub", "keep"]), texts)),
        *(["--all-profiles"] if d(st.booleans()) else []),
    ],
    "restore": lambda d, p: [d(p), *(["--yes"] if d(st.booleans()) else [])],
    "export": lambda d, p: [
        *_opt(d, "-o", p),
        *_opt(d, "--format", st.one_of(st.sampled_from(["json", "markdown"]), texts)),
    ],
    "backup": lambda d, p: d(st.lists(p, max_size=1)),
    "path": lambda d, p: [],
}

_COMMANDS: dict[str, Callable[[Draw, st.SearchStrategy], list[str]]] = {
    "ask": lambda d, p: ["ask", d(texts), *_chat_options(d)],
    "ask, options before": lambda d, p: [*_chat_options(d), "ask", d(texts)],  # old spelling
    "search": lambda d, p: ["search", d(texts), *_opt(d, "-n", numbers)],
    "recall": lambda d, p: ["recall", d(texts), *_opt(d, "-n", numbers)],
    "sessions": lambda d, p: ["sessions", *_opt(d, "-n", numbers)],
    "log": lambda d, p: [
        "log",
        *d(st.lists(texts, max_size=1)),
        *(["--json"] if d(st.booleans()) else []),
        *_opt(d, "--source", texts),
        *_opt(d, "--ttl-hours", numbers),
    ],
    "ingest": lambda d, p: ["ingest", *d(st.lists(read_places, min_size=1, max_size=3))],
    "embed": lambda d, p: ["embed"],
    "doctor": lambda d, p: ["doctor"],
    "path": lambda d, p: ["path"],
    "models": lambda d, p: d(
        st.one_of(
            st.just(["models"]),
            st.builds(
                lambda chat, emb: ["models", "use", *chat, *emb],
                st.lists(texts, max_size=1).map(lambda v: ["--chat", *v] if v else []),
                st.lists(texts, max_size=1).map(lambda v: ["--embedding", *v] if v else []),
            ),
        )
    ),
    "pull": lambda d, p: ["pull", d(st.one_of(st.sampled_from(["all-minilm"]), texts))],
    "sleep": lambda d, p: [
        "sleep",
        *d(st.lists(st.sampled_from(["--now", "--dry-run"]), max_size=2, unique=True)),
        *_opt(d, "--max-llm-calls", numbers),
    ],
    "token": lambda d, p: [
        "token",
        d(st.one_of(st.sampled_from(["set", "clear", "status"]), texts)),
    ],
    "import": lambda d, p: [
        "import",
        d(read_places),
        *_opt(d, "--profile", st.one_of(st.sampled_from(["restored"]), texts)),
        *_opt(d, "--max-mb", numbers),
    ],
    "memory": lambda d, p: _memory(d),
    "nonsense": lambda d, p: d(st.lists(texts, max_size=3)),
    # The vocabulary's own spellings, where they take what the old ones did not.
    "event import": lambda d, p: [
        "event",
        "import",
        *d(st.lists(st.one_of(read_places, st.just("-")), max_size=1)),
        *_opt(d, "--source", texts),
    ],
    "review": lambda d, p: [
        "review",
        d(st.sampled_from(["list", "approve", "reject"])),
        *d(st.lists(ids, max_size=1)),
        *(["--all"] if d(st.booleans()) else []),
        *_opt(d, "--kind", st.one_of(st.sampled_from(["fact", "sleep", "core"]), texts)),
    ],
    "sleep VERB": lambda d, p: [
        "sleep",
        d(st.sampled_from(["run", "preview"])),
        *d(st.lists(st.sampled_from(["--now", "--retry", "--dry-run"]), max_size=2, unique=True)),
        *_opt(d, "--max-llm-calls", numbers),
    ],
    "profile import": lambda d, p: [
        "profile",
        "import",
        d(read_places),
        d(st.one_of(st.sampled_from(["restored"]), texts)),
        *_opt(d, "--max-mb", numbers),
    ],
    "KIND delete": lambda d, p: [
        d(st.sampled_from(["fact", "session", "episode", "event", "document"])),
        "delete",
        d(ids),
    ],
}


def _chat_options(draw: Draw) -> list[str]:
    return [*_opt(draw, "--scope", texts), *(["-c"] if draw(st.booleans()) else [])]


def _globals(draw: Draw) -> list[str]:
    """Global options, which go anywhere on the line."""
    return [
        *_opt(draw, "--profile", st.one_of(st.just("default"), texts)),
        *_opt(draw, "--model", st.one_of(st.just("qwen3:1.7b"), texts)),
    ]


# Commands that delete by design: on success they may remove rows (forget, rm, delete,
# undo of an addition; sleep drops stale events; ingest replaces a changed file's chunks;
# restore puts a backup in place of the file).
_DELETING = {"forget", "rm", "--delete", "delete", "undo", "sleep", "ingest", "restore"}


def _deletes(argv: list[str]) -> bool:
    """Whether ``argv`` asks for a deletion (``document add`` replaces a changed file)."""
    return bool(_DELETING & set(argv)) or {"document", "add"} <= set(argv)


@st.composite
def invocations(draw: Draw) -> list[str]:
    """A `hippo` argv: a command with its arguments, global options before or after it."""
    command = draw(st.sampled_from(sorted(_COMMANDS)))
    return [*_globals(draw), *_COMMANDS[command](draw, places), *_globals(draw)]


@st.composite
def memory_invocations(draw: Draw) -> list[str]:
    """A `hippo memory ACTION ...` argv."""
    return _memory(draw)


json_lines = st.lists(
    st.one_of(
        st.dictionaries(
            st.sampled_from(["text", "source", "occurred_at", "ttl_hours", "importance", "x"]),
            st.one_of(texts, st.floats(), st.integers(), st.none(), st.booleans()),
        ).map(lambda record: json.dumps(record).encode()),
        st.binary(max_size=30),
        st.sampled_from([b'{"text": "\\ud800"}', b"[" * 5000, b'{"text": "fine"}']),
    ),
    max_size=4,
).map(lambda lines: b"\n".join(lines))


@dataclass(frozen=True)
class Pristine:
    """A copy of the seeded data file, an export of it, and the rows it holds."""

    db: Path
    export: bytes = field(repr=False)
    rows: Keys = field(repr=False)


@pytest.fixture
def pristine(seeded, engine, tmp_path) -> Pristine:
    """The seeded data file, copied whole, its export, and its rows.

    Each example starts from a byte copy of the file, so what a copy holds before the
    command is read once here (from a copy too: opening a file may change its bytes).
    """
    path = tmp_path / "pristine.db"
    engine.admin.export.backup(path)
    counted = tmp_path / "counted" / "hippo.db"
    counted.parent.mkdir()
    shutil.copyfile(path, counted)
    rows = stored_rows(counted)
    return Pristine(path, json.dumps(engine.admin.export.data()).encode(), rows)


@pytest.fixture
def no_keyring():
    """`hippo token set` must never reach the real user's keyring."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _run(argv: list[str], stdin: bytes, data_dir: Path) -> tuple[int, str]:
    err = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["--data-dir", str(data_dir), *argv])
    finally:
        sys.stdin = old_stdin
    return code, err.getvalue()


def _opens_a_window(argv: list[str]) -> bool:
    """Whether ``argv`` would open the TUI or install a system timer (left out here)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            parsed = whole_parser().parse_args(argv)
        except SystemExit:
            return False
    return parsed.command in (None, "chat") or getattr(parsed, "install_timer", False)


def _check(pristine: Pristine, argv: list[str], stdin: bytes) -> None:
    assume(not _opens_a_window(argv))
    with tempfile.TemporaryDirectory() as work:
        data_dir = Path(work, "data")
        data_dir.mkdir()
        shutil.copyfile(pristine.db, data_dir / "hippo.db")
        _make_places(Path(work, "places"), pristine.export)
        os.environ["HIPPO_CONFIG_DIR"] = str(Path(work, "config"))
        argv = [arg.replace(PLACE, str(Path(work, "places"))) for arg in argv]
        code, err = _run(argv, stdin, data_dir)
        event(f"exit {code}{' (usage)' if 'usage: hippo' in err else ''}")
        assert code in (0, 1), (code, err)
        assert "Traceback" not in err, err
        conn = connect(data_dir / "hippo.db", migrate=False)  # with the file's key
        try:
            gone = lost(pristine.rows, rows_of(conn))
            deleting = code == 0 and _deletes(argv)
            assert not gone or deleting, (gone, err)
            assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            conn.close()


_FUZZ = settings(
    max_examples=int(os.environ.get("HIPPO_FUZZ_EXAMPLES", "60")),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.heavy
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("no_keyring", "ollama_up")
@_FUZZ
@given(argv=invocations(), stdin=json_lines)
def test_any_command_line_exits_0_or_1_without_a_traceback_and_loses_nothing(pristine, argv, stdin):
    _check(pristine, argv, stdin)


@pytest.mark.heavy
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("no_keyring", "ollama_up")
@_FUZZ
@given(argv=memory_invocations(), stdin=st.sampled_from([b"", b"y\n", b"n\n"]))
def test_any_memory_action_exits_0_or_1_without_a_traceback_and_loses_nothing(
    pristine, argv, stdin
):
    _check(pristine, argv, stdin)
