"""The `hippo` command: a thin layer over the engine. With no command it opens the chat."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from assistant.cli import args as cli_args
from assistant.cli import ask as cli_ask
from assistant.cli import mcp as cli_mcp
from assistant.cli import memory as cli_memory
from assistant.cli import profiles as cli_profiles
from assistant.cli.parser import build_parser, parse_line
from assistant.cli.shared import dump_listing, wants_json
from assistant.config import Config, load_config, save_config
from assistant.errors import HippoError, InvalidInput, StorageError
from assistant.terminal import raw_stream, safe_streams
from assistant.textcheck import printable_path

if TYPE_CHECKING:
    from assistant.memory.records import MessageHit, Session
    from assistant.memory.retrieval import MemoryItem

__all__ = ["build_parser", "main"]

# Commands that open the data file: a plaintext one is encrypted before they run.
# (The chat does it in the app, with its progress on screen.)
_DATA_COMMANDS = {
    "ask", "search", "sessions", "embed", "log", "ingest", "recall", "sleep", "memory", "import",
    "profile", "mcp",
}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `hippo` command; return the exit status (0 done, 1 refused or failed).

    Bad input of any kind ends with one line saying what was wrong and what to do, never
    a traceback; a traceback is left only for a bug.
    """
    saved = sys.stdout
    # Whatever a command prints, stored text included, reaches the terminal escaped; and
    # a reader that leaves (`| head -1`) silences stdout instead of raising.
    sys.stdout = cli_args.QuietPipe(saved)
    try:
        with safe_streams():
            return _main(argv)
    finally:
        sys.stdout = saved


def _main(argv: Sequence[str] | None) -> int:
    """`main` inside its streams: every refusal and failure becomes exit status 1."""
    out = sys.stdout
    try:
        args = parse_line(argv)
        cli_args.check_text(args)
        config = load_config(data_dir=args.data_dir)
        if args.profile:
            config = replace(config, profile=args.profile)
        if args.model:
            config = config.with_models(chat=args.model)
        if args.command in _DATA_COMMANDS:
            _prepare_data_file(config)
        cli_profiles.check_profile(args, config)
        handler = _COMMANDS.get(args.command or "chat", _chat)
        return handler(args, config, out)
    except SystemExit as exc:  # --help, or a usage error (see cli_args.Parser)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except HippoError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hippo: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # --help | head, say: the reader left; not an error
        cli_args.silence(sys.stdout)
        return 0
    except Exception as exc:
        if (failed := _explain(exc)) is None:
            raise  # a bug
        print(f"hippo: {failed}", file=sys.stderr)
        return 1
    finally:
        out.flush()  # here, where a reader that left is noticed quietly, not at exit


def _explain(exc: Exception) -> str | None:
    """What an exception that escaped a command means for the user, if it is not a bug.

    SQLite's errors are Hippo's (``StorageError``) by the time they get here.
    """
    if isinstance(exc, UnicodeError):
        return (
            f"some text was not UTF-8 ({exc}). Hippo keeps text as UTF-8: convert it, "
            "e.g. with `iconv -f latin1 -t utf-8`, and try again."
        )
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read; nothing was done with it."
    if isinstance(exc, OSError) and exc.strerror:  # a file that can't be read or written
        where = f" ({printable_path(exc.filename)})" if exc.filename else ""
        return f"{exc.strerror}{where}; nothing was done."
    return None


def _chat(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.memory.records import scope_name

    scope = scope_name(args.scope)  # a bad name fails here, before the app starts
    # Without a terminal the full-screen app would write escape codes into a file and
    # wait for keys that never come: a piped message is answered as `ask` does.
    why = cli_ask.chat_needs_terminal(sys.stdin, sys.stdout)
    if why is not None:
        if args.command is None and not sys.stdin.isatty():
            return cli_ask.ask_command(args, config, out)
        raise InvalidInput(why)
    from assistant.starting import Starter
    from ui.app import HippoApp

    # The app opens the engine in a thread after its first frame: the chat shows before
    # the engine's modules load and the data file opens; meanwhile the status line asks
    # Ollama, through the gateway the engine then takes.
    starter = Starter(config)
    app = HippoApp(
        starter.open_engine,
        config,
        resume=args.resume,
        schedule_sleep=True,
        scope=scope,
        probe=starter.probe,
    )
    try:
        app.run()
    finally:
        if app.opened is not None:
            if app.chat.session_id is not None:  # the app closed: its session is over
                app.opened.conversations.end_session(app.chat.session_id)
            app.opened.close()
        starter.close()
    if app.open_error is not None:
        if app.chat.queued is not None:  # typed before the file failed to open: give it back
            print(
                f"hippo: not sent, as the data file did not open: {app.chat.queued}",
                file=sys.stderr,
            )
        raise app.open_error
    from ui.threads import exit_past_stragglers

    exit_past_stragglers(0)  # ctrl+q ends the process whatever a library thread waits on
    return 0


def _prepare_data_file(config: Config) -> None:
    """Encrypt a plaintext data file (with progress on stderr) and say what was done."""
    from assistant.cli.progress import LineProgress
    from assistant.datakey import KeyStore
    from assistant.encryption import prepare_data_file

    keys = KeyStore.for_config(config)
    prepare_data_file(config.db_path, keys, LineProgress(sys.stderr))
    for notice in keys.notices:
        print(f"hippo: {notice}", file=sys.stderr)


def _doctor(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.doctor import diagnose

    report = diagnose(config)
    width = max(len(label) for label, _ in report.facts)
    for label, value in report.facts:
        print(f"{label:<{width}}  {value}", file=out)
    if report.ok:
        print("\nNo problems found.", file=out)
        return 0
    print(f"\n{len(report.problems)} problem(s):", file=out)
    for problem in report.problems:
        print(f"- {problem}", file=out)
    return 1


def _path(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    print(config.db_path, file=out)
    return 0


def _ask(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    return cli_ask.ask_command(args, config, out)


def _models(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_gateway
    from assistant.llm.names import same_model
    from assistant.units import human_size

    if getattr(args, "models_command", None) == "use":
        return _use_models(args, config, out)
    with open_gateway(config) as gateway:
        listed = gateway.list_models()
    rows = []
    for info in listed:
        marks = [
            m
            for m, name in (("*chat", config.models.chat), ("*embedding", config.models.embedding))
            if same_model(info.name, name)
        ]
        rows.append(
            {
                "name": info.name,
                "size": info.size,
                "capabilities": sorted(info.capabilities),
                "used_for": [m.lstrip("*") for m in marks],
            }
        )
        if wants_json(args):
            continue
        caps = ", ".join(sorted(info.capabilities))
        size = human_size(info.size)
        print(f"{info.name:<28} {size:>9}  {caps:<36} {' '.join(marks)}", file=out)
    if wants_json(args):
        dump_listing(rows, args, out)
    return 0


def _pull_hint(name: str) -> str:
    """How to pull a model, said in the shell."""
    return f"Pull it with `hippo model pull {name}`."


def _use_models(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """`hippo model use`: check the names with Ollama, then save them.

    A name Ollama lacks, or that can't be checked as Ollama is away, is saved only with
    ``--force`` (the user means to pull it, or knows the host has it); a model Ollama
    says can't do its slot's job is never saved.
    """
    from assistant.factory import open_gateway
    from assistant.model_choice import Slot, check_models

    choices: dict[Slot, str] = {}
    slots: tuple[tuple[Slot, str | None], ...] = (
        ("chat", args.chat),
        ("embedding", args.embedding),
    )
    for slot, name in slots:
        if name is not None and not name.strip():
            raise InvalidInput(f"The {slot} model needs a name, e.g. `--{slot} NAME`.")
        if name:
            choices[slot] = name.strip()
    if not choices:
        raise InvalidInput("Say which model to use: --chat NAME and/or --embedding NAME.")
    with open_gateway(config) as gateway:
        problems = check_models(gateway, choices)
    refused = [p for p in problems if not (args.force and p.forcible)]
    if refused:
        lines = [p.text(_pull_hint) for p in refused]
        if any(p.kind == "unchecked" for p in refused):
            lines.append("Start Ollama (`ollama serve`) and try again, or add --force to save "
                         "without checking.")  # fmt: skip
        elif any(p.forcible for p in refused):
            lines.append("To save a name Ollama does not have yet, add --force.")
        raise InvalidInput("\n".join([*lines, "Nothing was saved."]))
    for problem in problems:  # forced: say what was saved unchecked
        print(f"hippo: saved anyway (--force): {problem.text(_pull_hint)}", file=sys.stderr)
    config = config.with_models(chat=choices.get("chat"), embedding=choices.get("embedding"))
    path = save_config(config)
    print(
        f"chat: {config.models.chat}  embedding: {config.models.embedding}  (saved to {path})",
        file=out,
    )
    return 0


def _pull(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_gateway

    if not args.name.strip():
        raise InvalidInput("Name the model to pull, e.g. `hippo model pull qwen3:1.7b`.")
    cancel = threading.Event()
    try:
        for progress in open_gateway(config).pull(args.name, cancel=cancel):
            share = f"{progress.fraction:6.1%}" if progress.fraction is not None else "   ..."
            speed = f"{progress.bytes_per_s / 1e6:7.1f} MB/s" if progress.bytes_per_s else ""
            raw_stream(out).write("\r")  # the progress line's own cursor move
            out.write(f"{progress.status[:40]:<40} {share} {speed}")
            out.flush()
    except KeyboardInterrupt:
        cancel.set()
        print("\nPull cancelled.", file=out)
        return 130
    print(f"\n{args.name} is ready.", file=out)
    return 0


def _search(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_engine

    with open_engine(config) as engine:
        hits = engine.memory.search_messages(args.query, limit=args.limit)
        _tell(engine.background.take_notices())
    if not hits:
        print("No messages match.", file=sys.stderr)
    elif note := _trust_note(hits[0].vector_trust, hits[0].vector is not None):
        print(note, file=sys.stderr)
    if wants_json(args):
        dump_listing(map(_hit_json, hits), args, out)
        return 0
    for hit in hits:
        msg = hit.message
        vector = f"{hit.vector:.2f}" if hit.vector is not None else "-"
        text = " ".join(msg.content.split())
        print(
            f"{hit.score:.2f} (kw {hit.keyword:.2f}, vec {vector})  "
            f"{msg.created_at:%Y-%m-%d %H:%M}  session {msg.session_id}  {msg.role}: "
            f"{text[:100]}",
            file=out,
        )
    return 0


def _tell(notices: list[str]) -> None:
    """Print what background work had to say (re-embedding, say), on stderr."""
    for notice in notices:
        print(f"hippo: {notice}", file=sys.stderr)


def _trust_note(trust: float, searched: bool) -> str:
    """A line saying how little the similarities (vec) counted, or "" if fully."""
    if not searched or trust >= 1.0:
        return ""
    if trust <= 0.0:
        return (
            "The embedding model does not read this query's script: its similarities"
            " (vec) are shown but not counted; keywords rank."
        )
    return (
        "The embedding model reads this query's script poorly: its similarities (vec)"
        f" count at {trust:.0%} of their weight."
    )


def _sessions(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_engine

    with open_engine(config) as engine:
        sessions = engine.conversations.sessions(args.limit)
        if wants_json(args):
            dump_listing(map(_session_json, sessions), args, out)
            return 0
        for session in sessions:
            scope = f"[{session.scope}] " if session.scope else ""
            mark = "incognito  " if session.incognito else ""
            print(
                f"{session.id:>6}  {session.last_active_at:%Y-%m-%d %H:%M}  "
                f"{session.message_count:>4} msgs  {mark}{scope}{session.title or '(untitled)'}",
                file=out,
            )
    return 0


def _hit_json(hit: MessageHit) -> dict[str, object]:
    msg = hit.message
    return {
        "score": hit.score,
        "keyword": hit.keyword,
        "vector": hit.vector,
        "message_id": msg.id,
        "session_id": msg.session_id,
        "role": msg.role,
        "created_at": msg.created_at.isoformat(),
        "content": msg.content,
    }


def _memory_json(m: MemoryItem) -> dict[str, object]:
    return {
        "score": m.score,
        "relevance": m.relevance,
        "keyword": m.keyword,
        "vector": m.vector,
        "recency": m.recency,
        "importance": m.importance,
        "kind": m.kind,
        "id": m.item_id,
        "at": m.at.isoformat(),
        "source": m.source,
        "text": m.text,
    }


def _session_json(session: Session) -> dict[str, object]:
    return {
        "id": session.id,
        "title": session.title,
        "scope": session.scope,
        "started_at": session.started_at.isoformat(),
        "last_active_at": session.last_active_at.isoformat(),
        "messages": session.message_count,
        "incognito": session.incognito,
    }


def _embed(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_engine

    with open_engine(config) as engine:
        stored = engine.background.embed_pending()
        left = engine.memory.vectors.queued()
        notices = engine.background.take_notices()
    for notice in notices:
        print(f"hippo: {notice}", file=sys.stderr)
    print(f"Embedded {stored} message(s); {left} still waiting.", file=out)
    return 0 if left == 0 else 1


def _token(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    import getpass

    from assistant.factory import open_gateway
    from assistant.secrets import TOKEN_ENV, clear_token, keyring_usable, load_token, save_token

    host = open_gateway(config).host
    if args.action == "set":
        token = getpass.getpass(f"Token for {host}: ") if sys.stdin.isatty() else sys.stdin.read()
        if not token.strip():
            raise InvalidInput("No token given; nothing was stored.")
        save_token(host, token.strip())
        print(f"Token for {host} stored in the system keyring.", file=out)
    elif args.action == "clear":
        found = clear_token(host)
        print(f"Token for {host} {'removed' if found else 'was not stored'}.", file=out)
    else:
        source = (
            "environment"
            if load_token(host, use_keyring=False)
            else "keyring"
            if load_token(host)
            else "none"
        )
        print(
            f"host: {host}\ntoken: {source}\nkeyring backend: "
            f"{'available' if keyring_usable() else f'none (set {TOKEN_ENV} instead)'}",
            file=out,
        )
    return 0


def _log(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from datetime import timedelta

    from assistant.factory import open_engine

    if args.json == bool(args.text):
        raise InvalidInput('Give the event as text (hippo log "TEXT") or use --json with stdin.')
    with open_engine(config) as engine:
        if args.json:
            with _json_lines(getattr(args, "file", "-")) as lines:
                result = engine.intake.log_events_json(lines, source=args.source)
            for error in result.errors:
                print(f"hippo: skipped {error}", file=sys.stderr)
            print(f"Logged {result.added} event(s).", file=out)
            return 1 if result.errors else 0
        ttl = timedelta(hours=args.ttl_hours) if args.ttl_hours is not None else None
        event = engine.intake.log_event(args.text, source=args.source, ttl=ttl)
        until = f", until {event.expires_at:%Y-%m-%d %H:%M}" if event.expires_at else ""
        print(f"Logged event {event.id} ({event.source}{until}).", file=out)
        return 0


@contextmanager
def _json_lines(path: str) -> Iterator[Iterable[str | bytes]]:
    """The JSON lines of `event import`: stdin for ``-``, else the file, as bytes.

    Bytes, so that a line that is not UTF-8 is reported alone (see log_json_lines).
    """
    if path == "-":
        stdin: Iterable[str | bytes] = getattr(sys.stdin, "buffer", sys.stdin)
        yield stdin
        return
    from assistant.files import require_file

    require_file(Path(path).expanduser(), "Can't import events from")
    with open(Path(path).expanduser(), "rb") as file:
        yield file


def _ingest(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_engine

    skipped = 0
    with open_engine(config) as engine:
        for path in args.paths:
            try:
                report = engine.intake.ingest(path)
            except StorageError:
                raise  # the data file failed: the next paths would fail too
            except HippoError as exc:  # this path only: the others are still ingested
                print(f"hippo: {exc}", file=sys.stderr)
                skipped += 1
                continue
            for result in report.results:
                print(f"{result.status:<9} {result.chunks:>4} chunks  {result.path}", file=out)
                if result.note:
                    print(f"          note: {result.note}", file=out)
            for where, why in report.skipped:
                print(f"skipped   {where}: {why}", file=out)
            skipped += len(report.skipped)
    return 1 if skipped else 0


def _recall(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.factory import open_engine

    with open_engine(config) as engine:
        memories = engine.memory.recall(args.query, limit=args.limit)
        _tell(engine.background.take_notices())
    if not memories:
        print("Nothing relevant is remembered.", file=sys.stderr)
    elif note := _trust_note(memories[0].vector_trust, memories[0].vector is not None):
        print(note, file=sys.stderr)
    if wants_json(args):
        dump_listing(map(_memory_json, memories), args, out)
        return 0
    for m in memories:
        vector = f"{m.vector:.2f}" if m.vector is not None else "-"
        text = " ".join(m.text.split())
        print(
            f"{m.score:.2f} (rel {m.relevance:.2f} = kw {m.keyword:.2f} + vec {vector}; "
            f"rec {m.recency:.2f}; imp {m.importance:.0f})  {m.kind} {m.item_id}  "
            f"{m.at:%Y-%m-%d}  {m.source}: {text[:90]}",
            file=out,
        )
    return 0


def _sleep(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from assistant.cli.sleep import sleep_command

    return sleep_command(args, config, out)


_COMMANDS = {
    "chat": _chat,
    "doctor": _doctor,
    "path": _path,
    "ask": _ask,
    "models": _models,
    "pull": _pull,
    "search": _search,
    "sessions": _sessions,
    "embed": _embed,
    "token": _token,
    "log": _log,
    "ingest": _ingest,
    "recall": _recall,
    "sleep": _sleep,
    **cli_memory.COMMANDS,
    **cli_profiles.COMMANDS,
    **cli_mcp.COMMANDS,
}
