"""Where the data file's bytes are: `hippo memory stats`, `hippo db vectors list|delete`."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Any, TextIO

from assistant.cli import args as cli_args
from assistant.cli.shared import dump_json, dump_listing, wants_json
from assistant.textcheck import printable_path

if TYPE_CHECKING:
    from assistant.admin import AdminStats, MemoryAdmin, StorageUsage
    from assistant.admin.storage import ModelSpace

__all__ = ["ACTIONS", "size_text"]


def size_text(count: int) -> str:
    """A byte count for people: ``812 KB``, ``3.4 MB``, ``1.20 GB``."""
    if count >= 1e9:
        return f"{count / 1e9:.2f} GB"
    if count >= 1e6:
        return f"{count / 1e6:.1f} MB"
    return f"{count / 1e3:.0f} KB"


def _stats(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    stats = admin.activity.stats()
    usage = admin.storage.usage()
    if args.json:
        dump_json(_stats_json(stats, usage), out)
        return 0
    print(f"profile   {stats.profile.name}", file=out)
    for tier, count in stats.counts.items():
        print(f"{tier:<9} {count}", file=out)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(stats.facts_by_status.items()))
    print(
        f"facts by status: {statuses or 'none'}; {stats.pending_review} awaiting review", file=out
    )
    print(f"file      {size_text(usage.file_bytes)}; {stats.queued_embeddings} to embed", file=out)
    print("\n".join(_usage_lines(usage)), file=out)
    return 0


def _usage_lines(usage: StorageUsage) -> list[str]:
    lines = [
        "",
        "Where the bytes are (the whole file, every profile):",
        f"  {'tier':<10} {'rows':>8} {'text':>9} {'keyword':>9} {'vectors':>9}",
    ]
    lines += [
        f"  {t.tier:<10} {t.rows:>8} {size_text(t.text_bytes):>9}"
        f" {size_text(t.keyword_bytes):>9} {size_text(t.vector_bytes):>9}"
        for t in usage.tiers
    ]
    lines.append(
        f"  {'other':<10} {'':>8} {size_text(usage.other_bytes):>9}"
        "  (history, queues, sleep's records, the schema)"
    )
    if usage.space.free_bytes:
        lines.append(
            f"  {'free':<10} {'':>8} {size_text(usage.space.free_bytes):>9}"
            "  (given back by the next sleep run)"
        )
    lines += ["", "Vectors per embedding model:", *_model_lines(usage.models)]
    lines += [
        "",
        f"Backups: {usage.backups}, {size_text(usage.backup_bytes)} in "
        f"{printable_path(usage.backup_folder)} (sleep's backups together take at most "
        f"{usage.backups_share}x the file; `hippo backup list` lists them)",
    ]
    return lines


def _model_lines(models: tuple[ModelSpace, ...], indent: str = "  ") -> list[str]:
    if not models:
        return [f"{indent}none yet (memories are embedded in the background)"]
    width = max(len(m.name) for m in models)
    return [
        f"{indent}{m.name:<{width}} {m.dim:>5}-d {m.vectors:>8} vectors {size_text(m.bytes):>9}  "
        + ("in use" if m.in_use else f"not in use: `hippo db vectors delete {m.name}`")
        for m in models
    ]


def _stats_json(stats: AdminStats, usage: StorageUsage) -> dict[str, Any]:
    return {
        "profile": stats.profile.name,
        "counts": stats.counts,
        "facts_by_status": stats.facts_by_status,
        "pending_review": stats.pending_review,
        "queued_embeddings": stats.queued_embeddings,
        "last_sleep": stats.last_sleep.isoformat() if stats.last_sleep else None,
        "file_bytes": usage.file_bytes,
        "bytes": {**usage.space.by_group(), "other_tables": usage.other_bytes},
        "tiers": [dataclasses.asdict(t) for t in usage.tiers],
        "models": [dataclasses.asdict(m) for m in usage.models],
        "backups": {
            "folder": str(usage.backup_folder),
            "count": usage.backups,
            "bytes": usage.backup_bytes,
        },
    }


def _vectors(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    models = admin.storage.usage().models
    if wants_json(args):
        dump_listing(map(dataclasses.asdict, models), args, out)
    else:
        print("\n".join(_model_lines(models, indent="")), file=out)
    return 0


def _delete_vectors(admin: MemoryAdmin, args: argparse.Namespace, out: TextIO) -> int:
    model = admin.storage.droppable(args.model)
    if not args.yes:
        question = (
            f"Delete the {model.vectors} vectors ({size_text(model.bytes)}) that {model.name} "
            "made? Hippo does not use them now; if you choose that model again, they are "
            "made anew. [y/N] "
        )
        if not cli_args.confirmed(question, out):
            print("Nothing was deleted.", file=out)
            return 1
    done = admin.storage.drop_vectors(model.name)
    shrunk = (
        f"the file went from {size_text(done.before_bytes)} to {size_text(done.after_bytes)}"
        if done.compacted
        else "the file was busy: it shrinks at the next sleep run"
    )
    print(f"Deleted {done.vectors} vectors of {done.name}; {shrunk}.", file=out)
    return 0


ACTIONS = {"stats": _stats, "vectors": _vectors, "delete_vectors": _delete_vectors}
