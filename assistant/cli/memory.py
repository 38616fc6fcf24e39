"""`hippo memory ...` and `hippo import`: the memory inspector on the command line.

Every stored artefact can be listed, exported and deleted from here: facts (``list``,
``search``, ``show``, ``edit``, ``pin``, ``approve``, ``reject``, ``rm fact``), the
review queue (``review``), history (``history``, ``undo``, ``believed``), sessions,
episodes, events and documents (``sessions``/``episodes``/``events``/``documents``, each
with ``--delete ID``, or ``rm KIND ID``), core memory (``core``), and all of it at once
(``forget``, ``export``, ``backup``, ``path``), the backups listed (``backups``) and one
put back in place of a damaged data file (``restore``). cli.py registers it with two lines.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from assistant.cli import args as cli_args
from assistant.config import Config
from assistant.errors import HippoError
from assistant.terminal import json_visible
from assistant.textcheck import printable_path

if TYPE_CHECKING:
    from collections.abc import Iterator

    from assistant.admin import MemoryAdmin

__all__ = ["COMMANDS", "add_parsers"]

# Import holds the whole export in memory, several times over while renumbering it:
# a 157 MB export took about 950 MB. Above this size, it asks to be told there is room.
IMPORT_MAX_MB = 200
_MEMORY_FACTOR = 6
# As assistant.admin.fact_queries.FACT_ORDERS (not imported here: the parser loads fast).
FACT_ORDERS = ("importance", "recent", "confidence", "accessed", "relevance")
_RM_KINDS = ("fact", "session", "episode", "event", "document")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``memory`` (with its actions) and ``import`` to the `hippo` parser."""
    memory = sub.add_parser("memory", help="see, search, correct, review, forget and export memory")
    verbs = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    _fact_parsers(verbs)
    _review_parsers(verbs)
    _history_parsers(verbs)
    _artefact_parsers(verbs)
    _file_parsers(verbs)
    imp = sub.add_parser("import", help="restore an exported file into a new profile")
    imp.add_argument("file", help="a JSON or Markdown file from `hippo memory export`")
    imp.add_argument(
        "--profile",
        dest="into",
        required=True,
        metavar="NAME",
        help="the new profile to restore into (must not exist)",
    )
    imp.add_argument(
        "--max-mb",
        type=cli_args.megabytes,
        default=IMPORT_MAX_MB,
        metavar="MB",
        help=f"refuse a file larger than this ({IMPORT_MAX_MB}): import holds it in memory",
    )


def _fact_parsers(verbs: argparse._SubParsersAction) -> None:
    add = verbs.add_parser(
        "add", help="state a fact yourself, as /remember does in the chat (`-`: from stdin)"
    )
    add.add_argument("text", help='the fact, e.g. "I moved to Lisbon in May"')
    add.add_argument(
        "--scope",
        dest="fact_scope",
        help="e.g. work, health (default: the global --scope, else general)",
    )
    listing = verbs.add_parser("list", aliases=["facts"], help="list facts (filters, pages)")
    _filters(listing)
    search = verbs.add_parser("search", help="search facts by keyword (and meaning)")
    search.add_argument("query")
    search.add_argument("--semantic", action="store_true", help="also search by meaning")
    _filters(search)
    verbs.add_parser("show", help="a fact with its evidence and history").add_argument(
        "id", type=cli_args.item_id
    )
    edit = verbs.add_parser("edit", help="change a fact (recorded; undoable)")
    edit.add_argument("id", type=cli_args.item_id)
    edit.add_argument("--statement", help="the new wording (makes it user-stated)")
    edit.add_argument("--scope", help="e.g. work, health ('' for general)")
    edit.add_argument("--importance", type=cli_args.importance, help="1-10")
    for name, text_ in (("pin", "always use a fact, listed first"), ("unpin", "unpin a fact")):
        verbs.add_parser(name, help=text_).add_argument("id", type=cli_args.item_id)
    for name, text_ in (
        ("wrong", "mark a fact wrong (stops its use)"),
        ("outdated", "mark a fact no longer true (expires now)"),
    ):
        verbs.add_parser(name, help=text_).add_argument("id", type=cli_args.item_id)


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--status", help="pending, active, superseded, rejected or expired")
    parser.add_argument("--scope", help="only this scope")
    parser.add_argument("--source", help="user_stated, assistant_inferred, document, ...")
    parser.add_argument("--order", choices=FACT_ORDERS, help="how to sort (importance)")
    parser.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
    parser.add_argument("--page", type=cli_args.page, default=1, help="which page (1)")
    parser.add_argument("--json", action="store_true", help="print JSON lines")


def _review_parsers(verbs: argparse._SubParsersAction) -> None:
    review = verbs.add_parser("review", help="the proposals waiting for approval")
    review.add_argument(
        "kind", nargs="?", help="fact, conflict, reflection, sleep, agent, core, ..."
    )
    review.add_argument("--json", action="store_true", help="print JSON lines")
    for name in ("approve", "reject"):
        action = verbs.add_parser(name, help=f"{name} a proposal (or --all of a kind)")
        action.add_argument(
            "id",
            nargs="?",
            type=cli_args.proposal,
            help="a fact's id, or core#ID for a core memory edit (see review)",
        )
        action.add_argument(
            "--all",
            nargs="?",
            const="*",
            metavar="KIND",
            help=f"{name} every pending item (of KIND)",
        )
        if name == "approve":
            action.add_argument("--statement", help="reword it, then approve")


def _history_parsers(verbs: argparse._SubParsersAction) -> None:
    history = verbs.add_parser("history", help="every memory change, newest first")
    history.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
    history.add_argument("--kind", choices=["fact", "core"], help="only facts or core blocks")
    history.add_argument("--json", action="store_true", help="print JSON lines")
    undo = verbs.add_parser("undo", help="undo one change (see history)")
    undo.add_argument(
        "change",
        type=cli_args.change,
        help="a change id from history, e.g. fact#12 or core#3 (or 12)",
    )
    believed = verbs.add_parser("believed", help="what Hippo believed on a date")
    believed.add_argument("query", nargs="?", help="about what (all facts if omitted)")
    believed.add_argument(
        "--as-of",
        required=True,
        help="a time, e.g. 2026-03-01T18:00, or a date, which means the end of that day",
    )
    believed.add_argument("--json", action="store_true", help="print JSON lines")


def _artefact_parsers(verbs: argparse._SubParsersAction) -> None:
    for name, what in (
        ("sessions", "sessions"),
        ("episodes", "episodes"),
        ("events", "events"),
        ("documents", "ingested documents"),
    ):
        listing = verbs.add_parser(name, help=f"list {what}, or delete one")
        listing.add_argument("-n", "--limit", type=cli_args.count, default=50, help="how many (50)")
        listing.add_argument(
            "--delete", type=cli_args.item_id, metavar="ID", help="delete this one for good"
        )
        listing.add_argument("--json", action="store_true", help="print JSON lines")
    rm = verbs.add_parser("rm", help="delete a fact, session, episode, event or document")
    rm.add_argument("kind", choices=_RM_KINDS)
    rm.add_argument("id", type=cli_args.item_id)
    verbs.add_parser("core", help="show the core memory blocks with their limits")
    activity = verbs.add_parser("activity", help="sessions, messages and memories per day")
    activity.add_argument("--days", type=cli_args.days, default=30, help="how many days (30)")
    verbs.add_parser("stats", help="how much is remembered, per tier")


def _file_parsers(verbs: argparse._SubParsersAction) -> None:
    forget = verbs.add_parser("forget", help="delete everything that mentions a text, for real")
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
    export = verbs.add_parser("export", help="export the profile (JSON or Markdown)")
    export.add_argument("-o", "--output", help="write to this file (default: stdout)")
    export.add_argument("--format", choices=["json", "markdown"], default="json")
    export.add_argument("--force", action="store_true", help="replace the -o file if it exists")
    export.add_argument(
        "--encrypt",
        action="store_true",
        help="seal it with a passphrase you type (needs -o); `hippo import` asks for it",
    )
    backup = verbs.add_parser("backup", help="copy the whole data file (owner-only)")
    backup.add_argument(
        "path", nargs="?", help="the new file, in a folder that exists (default: backups/)"
    )
    backup.add_argument("--force", action="store_true", help="replace the file if it exists")
    backups = verbs.add_parser(
        "backups", help="list the backups next to the data file (for `memory restore`)"
    )
    backups.add_argument("--json", action="store_true", help="print JSON lines")
    verbs.add_parser("path", help="print the data file's path")
    restore = verbs.add_parser(
        "restore", help="replace the data file with a backup (the old file is kept aside)"
    )
    restore.add_argument("backup", help="a backup file, or a name `hippo memory backups` lists")
    restore.add_argument("-y", "--yes", action="store_true", help="don't ask for confirmation")
    verbs.add_parser(
        "rekey", help="re-encrypt the data file and its backups with a new key (keyring)"
    )


@contextmanager
def _admin(config: Config) -> Iterator[MemoryAdmin]:
    from assistant.factory import open_engine

    engine = open_engine(config)
    try:
        yield engine.admin
    finally:
        engine.close()


def memory_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run `hippo memory ACTION`."""
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
    """Run `hippo memory restore BACKUP`: check it, confirm, swap it in."""
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
    receipt = restore_backup(config.db_path, backup, datetime.now())
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
    """Run `hippo import FILE --profile NAME`."""
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
        report = admin.import_(data, args.into)
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
        raise HippoError(
            f"Can't import {shown}: it is {size / 1e6:.1f} MB, over the {max_mb} MB limit. "
            f"Import reads the whole export into memory (about {_MEMORY_FACTOR} times its "
            f"size, so some {size * _MEMORY_FACTOR / 1e9:.1f} GB here). If this machine has "
            f"that much free, raise the limit: --max-mb {-(-size // 1_000_000)}."
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise HippoError(f"Can't read {shown}: {exc.strerror}.") from None


def _export_text(path: Path, data: bytes) -> str:
    """An unsealed export's text, refused if it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HippoError(
            f"{printable_path(path)} is not a Hippo export: it is not UTF-8 text (byte "
            f"0x{data[exc.start]:02x} at offset {exc.start}). Export one with `hippo memory "
            "export`."
        ) from None


def ask_passphrase(prompt: str, *, confirm: bool) -> str:
    """A passphrase typed at the terminal (not echoed), or the first line of piped stdin."""
    import getpass

    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    typed = getpass.getpass(prompt)
    if confirm and getpass.getpass("The same again: ") != typed:
        raise HippoError("The two passphrases differ; nothing was written.")
    return typed


def parse_time(value: str) -> datetime:
    """A date or ISO time typed by a person (local time when it has no zone)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise HippoError(f"{value!r} is not a date like 2026-03-01 or 2026-03-01T18:00.") from None
    try:
        return moment.astimezone()
    except (ValueError, OverflowError):  # the years 1 and 9999, shifted by a time zone
        raise HippoError(f"{value!r} is too near the ends of the calendar to use.") from None


def dump_json(value: object, out: TextIO) -> None:
    """Write ``value`` as one line of JSON (terminal controls as JSON escapes)."""
    out.write(json_visible(json.dumps(value, ensure_ascii=False, default=str)) + "\n")


COMMANDS = {"memory": memory_command, "import": import_command}
