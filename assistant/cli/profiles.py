"""``hippo profile list|rename|delete``, and the check that ``--profile`` names one.

A typo in ``--profile`` must not start an empty memory without a word: a name that is
not a profile yet is refused with the close names, unless ``--create-profile`` asks
for it (``hippo profile import FILE NEW`` creates its own).
"""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING, TextIO

from assistant.cli import args as cli_args
from assistant.cli.memory import IMPORT_MAX_MB
from assistant.cli.shared import add_json_options
from assistant.cli.tree import Verbs, noun, verb
from assistant.config import Config
from assistant.errors import NotFound

if TYPE_CHECKING:
    from assistant.memory.profiles import ProfileStore
    from data_schema.connect import Database

__all__ = ["COMMANDS", "add_parsers", "check_profile"]

# Commands that never read a profile's memory: --profile means nothing to them.
_NO_PROFILE = frozenset({"path", "token", "models", "pull", "profile", "import", "doctor"})


def add_parsers(sub: Verbs) -> None:
    """Add ``profile`` with its verbs to the `hippo` parser."""
    noun(sub, "profile", "memory profiles: list, rename, delete, export, import", _parsers)


def _parsers(verbs: Verbs) -> None:
    listing = verb(verbs, "list", "every profile, with what it holds", command="profile")
    add_json_options(listing)
    rename = verb(verbs, "rename", "rename a profile (its memories stay with it)")
    rename.set_defaults(command="profile")
    rename.add_argument("old")
    rename.add_argument("new")
    delete = verb(verbs, "delete", "delete a profile and all its memories, for good")
    delete.set_defaults(command="profile")
    delete.add_argument("name")
    delete.add_argument("-y", "--yes", action="store_true", help="don't ask for confirmation")
    _transfer_parsers(verbs)


def _transfer_parsers(verbs: Verbs) -> None:
    export = verb(verbs, "export", "export the profile in use (JSON or Markdown)")
    export.set_defaults(command="memory", memory_command="export")
    export.add_argument("-o", "--output", help="write to this file (default: stdout)")
    export.add_argument("--format", choices=["json", "markdown"], default="json")
    export.add_argument("--force", action="store_true", help="replace the -o file if it exists")
    export.add_argument(
        "--encrypt",
        action="store_true",
        help="seal it with a passphrase you type (needs -o); `hippo profile import` asks for it",
    )
    imp = verb(verbs, "import", "restore an exported file into a new profile", command="import")
    imp.add_argument("file", help="a JSON or Markdown file from `hippo profile export`")
    imp.add_argument(
        "into", metavar="NAME", help="the new profile to restore into (must not exist)"
    )
    imp.add_argument(
        "--max-mb",
        type=cli_args.megabytes,
        default=IMPORT_MAX_MB,
        metavar="MB",
        help=f"refuse a file larger than this ({IMPORT_MAX_MB}): import holds it in memory",
    )


def _store(config: Config) -> tuple[ProfileStore, Database]:
    from assistant.clock import SystemClock
    from assistant.datakey import KeyStore
    from assistant.memory.profiles import ProfileStore
    from data_schema.connect import Database

    db = Database(config.db_path, KeyStore.for_config(config))
    return ProfileStore(lambda: db.conn, SystemClock()), db


def check_profile(args: argparse.Namespace, config: Config) -> None:
    """Refuse a ``--profile`` that names no profile, unless ``--create-profile`` is given.

    Raises:
        HippoError: the name is not a profile (close names are suggested), or, to be
            created, is not a valid name.
    """
    from assistant.memory.profiles import DEFAULT_PROFILE, profile_name, unknown_profile

    name = getattr(args, "profile", None)
    if not name or (args.command or "chat") in _NO_PROFILE:
        return
    if getattr(args, "create_profile", False):
        profile_name(name)  # a new profile gets a proper name; the engine creates it
        return
    if name == DEFAULT_PROFILE:
        return
    names: list[str] = []
    if config.db_path.exists():
        store, db = _store(config)
        try:
            if store.find(name) is not None:
                return
            names = store.names()
        finally:
            db.close()
    raise NotFound(unknown_profile(name, names))


def profile_command(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    """Run ``hippo profile ACTION``."""
    store, db = _store(config)
    try:
        if args.profile_command == "list":
            return _list(store, args, out)
        if args.profile_command == "rename":
            store.rename(args.old, args.new)
            print(
                f"Renamed profile {args.old!r} to {args.new.strip()!r}. Use it with "
                f"`hippo --profile {shlex.quote(args.new.strip())}`.",
                file=out,
            )
            return 0
        return _delete(store, db, args, out)
    finally:
        db.close()


def _list(store: ProfileStore, args: argparse.Namespace, out: TextIO) -> int:
    from assistant.cli.shared import dump_listing, wants_json

    summaries = store.summaries()
    if wants_json(args):
        fields = ("id", "name", "created_at", "sessions", "messages", "facts")
        dump_listing(({f: getattr(p, f) for f in fields} for p in summaries), args, out)
        return 0
    for p in summaries:
        print(
            f"{p.name:<20} {p.sessions:>5} sessions {p.messages:>7} messages {p.facts:>6} facts",
            file=out,
        )
    return 0


def _delete(store: ProfileStore, db: Database, args: argparse.Namespace, out: TextIO) -> int:
    store.require(args.name)
    if not args.yes:
        question = (
            f"Delete profile {args.name!r} and every memory in it, for good? Make a backup "
            "first with `hippo backup create` if unsure. [y/N] "
        )
        if not cli_args.confirmed(question, out):
            print("Nothing was deleted.", file=out)
            return 1
    counts = store.delete(args.name)
    from assistant.memory.profile_data.purge_run import housekeep

    housekeep(db.conn)  # the deleted text leaves the file's bytes too
    held = ", ".join(f"{n} {table}" for table, n in counts.items() if n) or "nothing"
    print(f"Deleted profile {args.name!r} ({held}).", file=out)
    return 0


COMMANDS = {"profile": profile_command}
