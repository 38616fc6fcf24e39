"""The verbs of the memory nouns (`hippo fact list`, ...): each reads its arguments, calls
`MemoryAdmin`, prints."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
import re
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from assistant.admin import MemoryAdmin, text
from assistant.admin.views import ForgetPreview, ForgetReceipt
from assistant.cli import args as cli_args
from assistant.cli.shared import ask_passphrase, dump_listing, parse_time, wants_json
from assistant.cli.storage import ACTIONS as STORAGE_ACTIONS
from assistant.errors import InvalidInput
from assistant.files import writable_target
from assistant.terminal import json_visible
from assistant.textcheck import printable_path

__all__ = ["ACTIONS"]

Action = Callable[[MemoryAdmin, argparse.Namespace, TextIO], int]
_PAST = {"approve": "Approved", "reject": "Rejected"}
# What a fact verb leaves the fact as: the word its status (or pin) shows.
_DONE = {"pin": "Pinned", "unpin": "Unpinned", "wrong": "Rejected", "outdated": "Expired"}


def _facts(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    query = getattr(args, "query", None)
    filters = {"status": args.status, "scope": args.scope, "source_kind": args.source}
    found = admin.facts.list(
        **filters,
        query=query,
        semantic=getattr(args, "semantic", False),
        order=args.order,
        limit=args.limit,
        offset=(max(args.page, 1) - 1) * args.limit,
    )
    if wants_json(args):
        dump_listing(map(dataclasses.asdict, found), args, out)
        return 0
    total = admin.facts.count(**filters, query=query, semantic=getattr(args, "semantic", False))
    for fact in found:
        print(text.fact_line(fact), file=out)
    pages = max(1, -(-total // max(args.limit, 1)))
    print(
        f"{total} fact(s); page {args.page} of {pages}." if total else "No facts match.", file=out
    )
    return 0


def _add(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    from assistant.cli.ask import read_message

    statement = read_message(args.text, sys.stdin) if args.text == "-" else args.text
    scope = args.fact_scope if args.fact_scope is not None else args.scope
    settled = admin.facts.stated(statement, scope=scope, source="hippo fact add")
    fact = settled.fact
    if settled.repeat:
        print(f"Already known (nothing new stored): {text.fact_line(fact)}", file=out)
    elif settled.disputed:
        ids = ", ".join(str(f.id) for f in settled.disputed)
        print(
            f"Kept for review, not yet used: {text.fact_line(fact)}\nIt may contradict fact "
            f"{ids}; both are marked disputed until you decide: `hippo review approve "
            f"{fact.id}` replaces the old one, `hippo review reject {fact.id}` keeps it.",
            file=out,
        )
    elif fact.status == "active":
        print(f"Remembered: {text.fact_line(fact)}", file=out)
        for old in settled.superseded:
            print(f"Replaces (kept as history): {text.fact_line(old)}", file=out)
    else:  # instruction-like words wait for the user's own look
        print(
            f"Kept for review, not yet used: {text.fact_line(fact)}\nIt reads like an "
            f"instruction; use it with `hippo review approve {fact.id}`.",
            file=out,
        )
    return 0


def _show(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    print("\n".join(text.detail_lines(admin.facts.detail(args.id))), file=out)
    return 0


def _edit(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    if args.text is not None and args.statement is not None and args.text != args.statement:
        raise InvalidInput(
            'Give the new wording once: as TEXT (`hippo fact edit ID "TEXT"`) or with '
            "--statement, not both."
        )
    statement = args.text if args.text is not None else args.statement
    fact = admin.facts.edit(
        args.id, statement=statement, scope=args.scope, importance=args.importance
    )
    print(f"Edited: {text.fact_line(fact)}", file=out)
    return 0


def _fact_verb(verb: str) -> Action:
    def run(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
        call = {
            "pin": lambda i: admin.facts.pin(i, True),
            "unpin": lambda i: admin.facts.pin(i, False),
            "wrong": admin.facts.mark_wrong,
            "outdated": admin.facts.mark_outdated,
        }[verb]
        before = admin.facts.get(args.id)
        after = call(args.id)
        unchanged = (before.pinned, before.status) == (after.pinned, after.status)
        said = f"Already {_DONE[verb].lower()}" if unchanged else _DONE[verb]
        print(f"{said}: {text.fact_line(after)}", file=out)
        return 0

    return run


def _review(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    if wants_json(args):
        items: list[object] = [dataclasses.asdict(i) for i in admin.review.queue(args.kind)]
        if args.kind in (None, "core"):
            items += [
                {"kind": "core", **dataclasses.asdict(proposal)}
                for proposal in admin.review.core_queue()
            ]
        dump_listing(items, args, out)
        return 0
    lines = text.review_lines(admin.review.queue(args.kind))
    if args.kind in (None, "core"):
        lines += text.core_review_lines(admin.review.core_queue())
    print("\n".join(lines) if lines else "Nothing awaits review.", file=out)
    return 0


def _decide(verb: str) -> Action:
    def run(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
        if (args.id is None) == (args.all is None):
            raise InvalidInput(f"Say which proposal to {verb}: an id, or --all [--kind KIND].")
        if args.all is not None:
            kind = None if args.all == "*" else args.all
            done = (
                admin.review.approve_all(kind)
                if verb == "approve"
                else admin.review.reject_all(kind)
            )
            print(f"{_PAST[verb]} {len(done)} proposal(s).", file=out)
            return 0
        kind, number = args.id  # checked by cli_args.proposal
        if kind == "core":
            if verb == "approve":
                block = admin.review.approve_core(number)
                print(f"Approved: core#{number}; the {block.label} block now reads:", file=out)
                print(text.indent(block.value), file=out)
            else:
                proposal = admin.review.reject_core(number)
                print(f"Rejected: core#{number} ({proposal.description})", file=out)
            return 0
        if verb == "approve":
            fact = admin.review.approve(number, statement=args.statement)
        else:
            fact = admin.review.reject(number)
        print(f"{_PAST[verb]}: {text.fact_line(fact)}", file=out)
        return 0

    return run


def _history(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    changes = admin.history.changes(limit=args.limit, kind=args.kind)
    if wants_json(args):
        dump_listing(map(dataclasses.asdict, changes), args, out)
        return 0
    print("\n".join(map(text.change_line, changes)) or "No changes yet.", file=out)
    return 0


def _undo(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    kind, number = args.change  # checked by cli_args.change
    if kind == "core":
        block = admin.history.undo(number, kind="core")
        print(f"Undone. The {block.label} block now reads: {text.short(block.value)}", file=out)
    else:
        print(f"Undone. Now: {text.fact_line(admin.history.undo(number))}", file=out)
    return 0


def _believed(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    facts = admin.history.believed(args.query, _as_of(args.as_of))
    if wants_json(args):
        dump_listing(map(dataclasses.asdict, facts), args, out)
        return 0
    for fact in facts:
        print(text.fact_line(fact), file=out)
    print(f"{len(facts)} fact(s) held true then.", file=out)
    return 0


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _as_of(value: str) -> datetime:
    """A typed moment; a date alone means the end of that day, so its facts count."""
    if _DATE.fullmatch(value.strip()):
        parse_time(value.strip())  # refused as typed, not as the moment it stands for
        return parse_time(f"{value.strip()}T23:59:59.999999")
    return parse_time(value)


def _listing(kind: str) -> Action:
    def run(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
        if args.delete is not None:
            return _remove(admin, kind.rstrip("s"), args.delete, out)
        if wants_json(args):
            dump_listing(map(dataclasses.asdict, _items(admin, kind, args.limit)), args, out)
            return 0
        for line in _rows(admin, kind, args.limit):
            print(line, file=out)
        return 0

    return run


def _rows(admin: MemoryAdmin, kind: str, limit: int) -> list[str]:
    if kind == "sessions":
        return [text.session_line(s) for s in admin.browse.sessions(limit)]
    if kind == "episodes":
        return [text.episode_line(e) for e in admin.browse.episodes(limit)]
    if kind == "events":
        return [text.event_line(e) for e in admin.browse.events(limit)]
    return [text.document_line(d) for d in admin.browse.documents()[:limit]]


def _items(admin: MemoryAdmin, kind: str, limit: int) -> list[Any]:
    if kind == "sessions":
        return list(admin.browse.sessions(limit))
    if kind == "episodes":
        return list(admin.browse.episodes(limit))
    if kind == "events":
        return list(admin.browse.events(limit))
    return list(admin.browse.documents()[:limit])


def _remove(admin: MemoryAdmin, kind: str, item_id: int, out: TextIO) -> int:
    deletes: dict[str, Callable[[int], ForgetReceipt]] = {
        "fact": admin.facts.delete,
        "session": admin.forget.delete_session,
        "episode": admin.forget.delete_episode,
        "event": admin.forget.delete_event,
        "document": admin.forget.delete_document,
    }
    print(deletes[kind](item_id).text(), file=out)
    return 0


def _rm(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    return _remove(admin, args.kind, args.id, out)


def _core(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    blocks = list(admin.browse.core_blocks().items())[: args.limit]
    if wants_json(args):
        dump_listing((dataclasses.asdict(block) for _, block in blocks), args, out)
        return 0
    for label, block in blocks:
        print(f"[{label}] {len(block.value)}/{block.char_limit} chars", file=out)
        print(block.value or "(empty)", file=out)
    return 0


def _activity(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    print("\n".join(text.activity_lines(admin.activity.per_day(args.days))), file=out)
    return 0


def _forget(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    preview = admin.forget.preview(args.text, all_profiles=args.all_profiles)
    if preview.empty:
        nothing = f"Nothing mentions {preview.text!r} {preview.where}."
        print(nothing, *text.elsewhere_lines(preview), sep="\n", file=out)
        return 0
    keep: list[str] = []
    if args.keep:
        keep, preview = _keeping(admin, preview, [n for listed in args.keep for n in listed])
    if not args.yes or preview.nothing_selected:
        print("\n".join(text.preview_lines(preview)), file=out)
    if preview.nothing_selected:
        print("Every line is kept: nothing was forgotten.", file=out)
        return 0
    if not args.yes:
        question = (
            f"Forget these {preview.total} row(s) for good? This can't be undone. "
            "(To keep some, answer n and add --keep with their numbers.) [y/N] "
        )
        if not cli_args.confirmed(question, out):
            print("Nothing was forgotten.", file=out)
            return 1
    receipt = admin.forget.text(
        args.text, backups=args.backups, all_profiles=args.all_profiles, keep=keep
    )
    print(receipt.text(), file=out)
    return 0


def _keeping(
    admin: MemoryAdmin, preview: ForgetPreview, numbers: list[int]
) -> tuple[list[str], ForgetPreview]:
    """The keys of the lines numbered ``numbers`` (``--keep``), and the preview keeping them.

    Lines listed only once others are kept (the evidence a kept fact loses) are numbered
    after the rest, so they are found by keeping the others first.

    Raises:
        InvalidInput: a number the preview does not show.
    """
    wanted = list(dict.fromkeys(numbers))
    keys: list[str] = []
    while True:
        lines = preview.numbered()
        found = [lines[n].key for n in wanted if n in lines]
        if found == keys:
            break
        keys, preview = found, admin.forget.reselect(preview, found)
    wrong = [n for n in wanted if n not in lines]
    if wrong:
        shown = ", ".join(map(str, wrong[:5])) + (", ..." if len(wrong) > 5 else "")
        raise InvalidInput(
            f"--keep {shown}: the preview of {preview.text!r} numbers its lines 1 to "
            f"{len(lines)}. Run `hippo memory forget TEXT` without --yes to see them; nothing "
            "was forgotten."
        )
    return keys, preview


_PLAIN = (
    "It is plaintext, meant to be read and moved: anyone who can read the file can read "
    "these memories (--encrypt seals it with a passphrase)."
)


def _export(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    if args.encrypt and not args.output:
        raise InvalidInput("Say where to write the sealed export: --encrypt needs -o FILE.")
    if args.format == "markdown":
        body = admin.export.markdown()
    else:
        import json

        body = json.dumps(admin.export.data(), ensure_ascii=False, indent=1) + "\n"
    if not args.output:  # JSON keeps its value exactly; Markdown shows controls escaped
        out.write(json_visible(body) if args.format == "json" else body)
        print(f"hippo: {_PLAIN}", file=sys.stderr)
        return 0
    path = writable_target(Path(args.output).expanduser())
    if path.is_file() and not args.force:  # as `memory backup` does; a pipe or device is fine
        raise InvalidInput(
            f"{printable_path(path)} exists already; choose a new file, or add --force to "
            "replace it."
        )
    if args.encrypt:
        from assistant.admin.sealed import seal

        sealed = seal(body, ask_passphrase("Passphrase for the export: ", confirm=True))
        _write_private(path, sealed)
        print(
            f"Exported profile {admin.profile.name!r} to {printable_path(path)}, sealed with "
            "your passphrase (`hippo profile import` asks for it; without it the file can't "
            "be read).",
            file=out,
        )
        return 0
    _write_private(path, body.encode("utf-8"))
    print(f"Exported profile {admin.profile.name!r} to {printable_path(path)}. {_PLAIN}", file=out)
    return 0


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, owner-only from the start, replacing it only when whole.

    A failed write (a full disk) leaves an earlier file of that name as it was. A pipe
    or a device (``-o /dev/stdout``) is written to as it is, never replaced.
    """
    if path.exists() and not path.is_file():
        try:  # non-blocking, so that a pipe nothing reads fails at once instead of hanging
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            raise InvalidInput(
                f"Can't write {printable_path(path)}: it is a named pipe that nothing reads."
            ) from None
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        return
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _backup(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    print(f"Backed up to {admin.export.backup(args.path, force=args.force)}", file=out)
    return 0


def _path(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    print(admin.export.path, file=out)
    return 0


ACTIONS: dict[str, Action] = {
    "add": _add,
    "list": _facts,
    "facts": _facts,
    "search": _facts,
    "show": _show,
    "edit": _edit,
    **{verb: _fact_verb(verb) for verb in ("pin", "unpin", "wrong", "outdated")},
    "review": _review,
    "approve": _decide("approve"),
    "reject": _decide("reject"),
    "history": _history,
    "undo": _undo,
    "believed": _believed,
    **{kind: _listing(kind) for kind in ("sessions", "episodes", "events", "documents")},
    "rm": _rm,
    "core": _core,
    "activity": _activity,
    **STORAGE_ACTIONS,
    "forget": _forget,
    "export": _export,
    "backup": _backup,
    "path": _path,
}
