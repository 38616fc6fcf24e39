"""The memory nouns of `hippo` (fact, review, history, session, message, episode, event,
document, core, memory, backup, db) and what runs them: `hippo fact list` and its kin.

Every stored artefact can be listed and deleted the same way (``fact list``, ``session
delete ID``, ...); facts can also be searched, shown, stated, edited, pinned and marked;
proposals reviewed; changes listed and undone; the data file backed up, restored and
re-keyed. `memory_command` runs every verb that works on the admin side of the engine;
`import_command` restores an export into a new profile (``hippo profile import``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from assistant.cli import args as cli_args
from assistant.cli.shared import add_json_options, ask_passphrase
from assistant.cli.tree import Verbs, noun, verb
from assistant.config import Config
from assistant.errors import InvalidInput
from assistant.textcheck import printable_path

if TYPE_CHECKING:
    from collections.abc import Iterator

    from assistant.admin import MemoryAdmin

__all__ = ["COMMANDS", "add_parsers"]

# Import holds the whole export in memory, several times over while renumbering it:
# a 157 MB export took about 950 MB. Above this size, it asks to be told there is room.
IMPORT_MAX_MB = 200
_MEMORY_FACTOR = 6
# As assistant.memory.facts.listing.FACT_ORDERS (not imported here: the parser loads fast).
FACT_ORDERS = ("importance", "recent", "confidence", "accessed", "relevance")
# As assistant.memory.facts.fact.STATUSES (likewise).
FACT_STATUSES = ("pending", "active", "superseded", "rejected", "expired")


def _mem(action: str, **more: object) -> dict[str, object]:
    """The defaults that send a verb to `memory_command`'s action ``action``."""
    return {"command": "memory", "memory_command": action, **more}


def add_parsers(sub: Verbs) -> None:
    """Add the nouns of memory (fact, review, history, session, message, episode, event,
    document, core, memory) and of the data file (backup, db) to the `hippo` parser."""
    noun(sub, "fact", "list, search, state, correct and delete facts", _fact_parsers)
    noun(sub, "review", "the proposals waiting for approval: approve or reject", _review_parsers)
    noun(sub, "history", "every memory change: list, undo, believed at a time", _history_parsers)
    noun(sub, "session", "the conversations: list, delete", _session_parsers)
    noun(sub, "message", "every message of every chat: search", _message_parsers)
    noun(sub, "episode", "sleep's summaries of sessions: list, delete", _episode_parsers)
    noun(sub, "event", "what happened outside the chat: add, import, list, delete", _event_parsers)
    noun(sub, "document", "archival memory, from your files: add, list, delete", _document_parsers)
    noun(sub, "core", "the core memory blocks (persona, human)", _core_parsers)
    noun(sub, "memory", "all of memory at once: recall, embed, stats, forget", _memory_parsers)
    noun(sub, "backup", "copies of the whole data file: create, list, restore", _backup_parsers)
    noun(sub, "db", "the data file itself: path, rekey, vectors", _db_parsers)


def _fact_parsers(verbs: Verbs) -> None:
    add = verb(
        verbs,
        "add",
        "state a fact yourself, as /remember does in the chat (`-`: from stdin)",
        **_mem("add"),
    )
    add.add_argument("text", help='the fact, e.g. "I moved to Lisbon in May"')
    add.add_argument(
        "--scope",
        dest="fact_scope",
        help="e.g. work, health (default: general)",
    )
    listing = verb(verbs, "list", "list facts (filters, pages)", **_mem("list"))
    _filters(listing)
    search = verb(verbs, "search", "search facts by keyword (and meaning)", **_mem("search"))
    search.add_argument("query")
    search.add_argument("--semantic", action="store_true", help="also search by meaning")
    _filters(search)
    verb(verbs, "show", "a fact with its evidence and history", **_mem("show")).add_argument(
        "id", type=cli_args.item_id
    )
    edit = verb(verbs, "edit", "change a fact (recorded; undoable)", **_mem("edit"))
    edit.add_argument("id", type=cli_args.item_id)
    edit.add_argument("text", nargs="?", help="the new wording, as in `fact add`")
    edit.add_argument("--statement", help="the new wording, as TEXT (makes it user-stated)")
    edit.add_argument("--scope", help="e.g. work, health ('' for general)")
    edit.add_argument("--importance", type=cli_args.importance, help="1-10")
    for name, text_ in (
        ("pin", "always use a fact, listed first"),
        ("unpin", "unpin a fact"),
        ("wrong", "reject a fact as wrong (status rejected: no longer used)"),
        ("outdated", "expire a fact that is no longer true (status expired)"),
    ):
        verb(verbs, name, text_, **_mem(name)).add_argument("id", type=cli_args.item_id)
    _delete(verbs, "fact")


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--status", choices=FACT_STATUSES, help="pending, active, superseded, rejected or expired"
    )
    parser.add_argument("--scope", help="only this scope")
    parser.add_argument("--source", help="user_stated, assistant_inferred, document, ...")
    parser.add_argument("--order", choices=FACT_ORDERS, help="how to sort (importance)")
    parser.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
    parser.add_argument("--page", type=cli_args.page, default=1, help="which page (1)")
    add_json_options(parser)


def _review_parsers(verbs: Verbs) -> None:
    review = verb(verbs, "list", "the proposals waiting for approval", **_mem("review"))
    review.add_argument(
        "--kind", help="only this kind: fact, conflict, reflection, sleep, agent, core, ..."
    )
    add_json_options(review)
    for name in ("approve", "reject"):
        action = verb(
            verbs, name, f"{name} a proposal, or --all of them", **_mem(name), settle=_every
        )
        action.add_argument(
            "id",
            nargs="?",
            type=cli_args.proposal,
            help="a fact's id, or core#ID for a core memory edit (see review list)",
        )
        action.add_argument(
            "--all", dest="every", action="store_true", help=f"{name} every pending proposal"
        )
        action.add_argument("--kind", help="with --all: only the proposals of this kind")
        if name == "approve":
            action.add_argument("--statement", help="reword it, then approve")


def _every(args: argparse.Namespace) -> str | None:
    """Read ``--all [--kind KIND]`` as `memory_actions` takes it; say what is wrong, if so."""
    if args.kind is not None and not args.every:
        return "--kind says which proposals --all means: add --all, or drop --kind."
    args.all = (args.kind or "*") if args.every else None
    return None


def _history_parsers(verbs: Verbs) -> None:
    history = verb(verbs, "list", "every memory change, newest first", **_mem("history"))
    history.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
    history.add_argument("--kind", choices=["fact", "core"], help="only facts or core blocks")
    add_json_options(history)
    undo = verb(verbs, "undo", "undo one change (see history list)", **_mem("undo"))
    undo.add_argument(
        "change",
        type=cli_args.change,
        help="a change id from history, e.g. fact#12 or core#3 (or 12)",
    )
    believed = verb(verbs, "believed", "what Hippo believed at a time", **_mem("believed"))
    believed.add_argument("query", nargs="?", help="about what (all facts if omitted)")
    believed.add_argument(
        "--as-of",
        required=True,
        help="a time, e.g. 2026-03-01T18:00, or a date, which means the end of that day",
    )
    add_json_options(believed)


def _session_parsers(verbs: Verbs) -> None:
    listing = verb(verbs, "list", "recent sessions, newest first", command="sessions")
    _listing_options(listing)
    _delete(verbs, "session")


def _message_parsers(verbs: Verbs) -> None:
    search = verb(verbs, "search", "search every message by keyword and meaning")
    search.set_defaults(command="search")
    search.add_argument("query")
    search.add_argument("-n", "--limit", type=cli_args.count, default=10, help="how many hits (10)")
    add_json_options(search)


def _episode_parsers(verbs: Verbs) -> None:
    _listing_options(verb(verbs, "list", "recent episodes", **_mem("episodes", delete=None)))
    _delete(verbs, "episode")


def _document_parsers(verbs: Verbs) -> None:
    add = verb(verbs, "add", "add text/Markdown files or folders", command="ingest")
    add.add_argument("paths", nargs="+", metavar="PATH")
    listing = verb(verbs, "list", "ingested documents", **_mem("documents", delete=None))
    _listing_options(listing)
    _delete(verbs, "document")


def _core_parsers(verbs: Verbs) -> None:
    listing = verb(verbs, "list", "show the core memory blocks with their limits", **_mem("core"))
    _listing_options(listing)


def _event_parsers(verbs: Verbs) -> None:
    add = verb(verbs, "add", "record an event (sensory memory)", command="log", json=False)
    add.add_argument("text", help='what happened, e.g. "finished a 5k run"')
    add.add_argument("--source", default="cli", help="where the event comes from (cli)")
    add.add_argument(
        "--ttl-hours", type=cli_args.hours, help="forget it after this many hours (7 days)"
    )
    many = verb(
        verbs,
        "import",
        'record events from JSON lines: {"text", "source", "occurred_at", "expires_at", '
        '"ttl_hours", "importance"}',
        command="log",
        json=True,
        text=None,
        ttl_hours=None,
    )
    many.add_argument("file", nargs="?", default="-", help="a file of JSON lines (`-`: stdin)")
    many.add_argument("--source", default="cli", help="where events without one come from")
    _listing_options(verb(verbs, "list", "recent events", **_mem("events", delete=None)))
    _delete(verbs, "event")


def _listing_options(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
    add_json_options(listing)


def _delete(verbs: Verbs, kind: str) -> None:
    gone = verb(verbs, "delete", f"delete a {kind} for good", **_mem("rm", kind=kind))
    gone.add_argument("id", type=cli_args.item_id)


def _memory_parsers(verbs: Verbs) -> None:
    recall = verb(verbs, "recall", "what Hippo would recall for a text, with scores")
    recall.set_defaults(command="recall")
    recall.add_argument("query")
    recall.add_argument("-n", "--limit", type=cli_args.count, default=10, help="how many (10)")
    add_json_options(recall)
    verb(verbs, "embed", "embed memories still waiting for vectors, now", command="embed")
    stats = verb(verbs, "stats", "how much is remembered, and where the bytes are", **_mem("stats"))
    stats.add_argument("--json", action="store_true", help="print one line of JSON")
    activity = verb(verbs, "activity", "sessions, messages and memories per day")
    activity.set_defaults(**_mem("activity"))
    activity.add_argument("--days", type=cli_args.days, default=30, help="how many days (30)")
    forget = verb(verbs, "forget", "delete everything that mentions a text, for real")
    forget.set_defaults(**_mem("forget"))
    forget.add_argument("text")
    forget.add_argument("-y", "--yes", action="store_true", help="don't ask for confirmation")
    forget.add_argument(
        "--backups",
        choices=["scrub", "delete", "keep"],
        default="scrub",
        help="what to do with backups next to the data file (scrub)",
    )
    forget.add_argument(
        "--all-profiles",
        action="store_true",
        help="forget it in every profile (by default only in the profile in use)",
    )
    forget.add_argument(
        "--keep",
        type=cli_args.numbers,
        action="append",
        default=[],
        metavar="N,M",
        help="leave these lines of the numbered preview in place, e.g. 3,5 or 2-4 "
        "(run without --yes to see the numbers)",
    )


def _backup_parsers(verbs: Verbs) -> None:
    backup = verb(verbs, "create", "copy the whole data file (owner-only)", **_mem("backup"))
    backup.add_argument(
        "path", nargs="?", help="the new file, in a folder that exists (default: backups/)"
    )
    backup.add_argument("--force", action="store_true", help="replace the file if it exists")
    backups = verb(verbs, "list", "the backups next to the data file", **_mem("backups"))
    add_json_options(backups)
    restore = verb(
        verbs,
        "restore",
        "replace the data file with a backup (the old file is kept aside)",
        **_mem("restore"),
    )
    restore.add_argument("backup", help="a backup file, or a name `hippo backup list` shows")
    restore.add_argument("-y", "--yes", action="store_true", help="don't ask for confirmation")
    restore.add_argument(
        "--carry-over",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="bring across what the replaced file holds beyond the backup (the default)",
    )


def _db_parsers(db: Verbs) -> None:
    verb(db, "path", "print the data file's path", command="path")
    verb(
        db, "rekey", "re-encrypt the data file and its backups with a new key (keyring)"
    ).set_defaults(**_mem("rekey"))
    noun(db, "vectors", "the vectors each embedding model made: list, delete", _vector_parsers)


def _vector_parsers(verbs: Verbs) -> None:
    listing = verb(verbs, "list", "each model's vectors: how many, their size", **_mem("vectors"))
    add_json_options(listing)
    gone = verb(
        verbs,
        "delete",
        "delete the vectors of a model no longer used (never the one in use)",
        **_mem("delete_vectors"),
    )
    gone.add_argument("model", help="the model, as `hippo db vectors list` names it")
    gone.add_argument("-y", "--yes", action="store_true", help="don't ask for confirmation")


@contextmanager
def _admin(config: Config) -> Iterator[MemoryAdmin]:
    from assistant.factory import open_engine

    with open_engine(config) as engine:
        yield engine.admin


def memory_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run a verb of a memory noun (``fact list``, ``backup create``, ...)."""
    from assistant.cli.memory_actions import ACTIONS

    if args.memory_command == "restore":  # the data file must not be open for this one
        return restore_command(args, config, out)
    if args.memory_command == "backups":  # a listing of files: the data file may be damaged
        from assistant.cli.backups import backups_command

        return backups_command(args, config, out)
    if args.memory_command == "rekey":  # needs the file closed: no engine
        return _rekey(config, out)
    with _admin(config) as admin:
        return ACTIONS[args.memory_command](admin, args, out)


def restore_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run `hippo backup restore BACKUP`: check it, confirm, swap it in."""
    from assistant.backup_restore import find_backup, restore_backup

    backup = find_backup(config.db_path, args.backup)
    if not args.yes:
        question = (
            f"Replace the data file {config.db_path} with {backup}? Close Hippo first; the "
            "current file is kept aside. [y/N] "
        )
        if not cli_args.confirmed(question, out):
            print("Nothing was restored.", file=out)
            return 1
    receipt = restore_backup(config.db_path, backup, datetime.now(), carry=args.carry_over)
    print(receipt.text(), file=out)
    return 0


def _rekey(config: Config, out: TextIO) -> int:
    from assistant.cli.progress import LineProgress
    from assistant.datakey import KeyStore
    from assistant.encryption import rekey

    done = rekey(config.db_path, KeyStore.for_config(config), LineProgress(sys.stderr))
    print(done.text(), file=out)
    return 0


def import_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run `hippo profile import FILE NAME`."""
    from assistant.admin import load_export
    from assistant.admin.sealed import is_sealed, unseal

    path = Path(args.file).expanduser()
    blob = _read_export(path, args.max_mb)
    if is_sealed(blob):
        text = unseal(blob, ask_passphrase(f"Passphrase for {path}: ", confirm=False))
    else:
        text = _export_text(path, blob)
    data = load_export(text)
    with _admin(config) as admin:
        report = admin.export.import_(data, args.into)
    counts = ", ".join(f"{n} {what}" for what, n in report.counts.items() if n)
    print(f"Imported into profile {report.profile.name!r}: {counts or 'nothing'}.", file=out)
    for warning in report.warnings:
        print(f"hippo: dropped a reference: {warning}", file=sys.stderr)
    print(f"Use it with `hippo --profile {shlex.quote(report.profile.name)}`.", file=out)
    return 0


def _read_export(path: Path, max_mb: int) -> bytes:
    """An export file's bytes, refused if it is no file or too large."""
    from assistant.files import require_file

    shown = printable_path(path)
    size = require_file(path, "Can't import")
    if size > max_mb * 1_000_000:
        raise InvalidInput(
            f"Can't import {shown}: it is {size / 1e6:.1f} MB, over the {max_mb} MB limit. "
            f"Import reads the whole export into memory (about {_MEMORY_FACTOR} times its "
            f"size, so some {size * _MEMORY_FACTOR / 1e9:.1f} GB here). If this machine has "
            f"that much free, raise the limit: --max-mb {-(-size // 1_000_000)}."
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"Can't read {shown}: {exc.strerror}.") from None


def _export_text(path: Path, data: bytes) -> str:
    """An unsealed export's text, refused if it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{printable_path(path)} is not a Hippo export: it is not UTF-8 text (byte "
            f"0x{data[exc.start]:02x} at offset {exc.start}). Export one with `hippo profile "
            "export`."
        ) from None


COMMANDS = {"memory": memory_command, "import": import_command}
