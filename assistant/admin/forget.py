"""Forgetting for real: everything about a text, a whole session, or an incognito chat.

A forget deletes in one transaction every row of every tier that mentions the text (see
`purge_plan` for what goes with it), then scrubs the file (`purge_run.housekeep`), so the
words are no longer anywhere in the data file's bytes.

Backups: the nightly backups next to the data file (and those made by ``backup()``
without a path) would still hold the words, so each is scrubbed the same way, in place.
They are kept rather than deleted because they are what lets a night's consolidation be
undone; one that can't be opened is deleted. Copies saved elsewhere can't be found, so
the receipt says to delete those by hand.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import apsw

from assistant.admin.base import AdminBase
from assistant.admin.models import TIERS, ForgetPreview, ForgetReceipt
from assistant.admin.purge_find import PurgeFinder
from assistant.admin.purge_plan import PurgePlan
from assistant.admin.purge_run import PurgeRunner, housekeep
from assistant.errors import HippoError, InvalidInput, NotFound
from data_schema.connect import connect

if TYPE_CHECKING:
    from assistant.engine import Hippo

__all__ = ["BACKUP_FOLDER", "BackupPolicy", "ForgetAdmin"]

BACKUP_FOLDER = "backups"
BackupPolicy = Literal["scrub", "delete", "keep"]
Replan = Callable[[PurgeFinder, int], PurgePlan]


def _needle(text: str) -> str:
    needle = " ".join(text.split())
    if not needle:
        raise InvalidInput("Say what to forget: the text is empty.")
    return needle


class ForgetAdmin(AdminBase):
    """Previewing and carrying out forgets, session deletes and incognito clean-up."""

    def forget_preview(self, text: str, *, all_profiles: bool = False) -> ForgetPreview:
        """Every row in every tier that ``forget(text)`` would delete or rewrite, by tier.

        Args:
            text: the words to forget.
            all_profiles: cover every profile, not just this one; otherwise the preview
                counts what other profiles hold (``elsewhere``), which a forget leaves.
        """
        needle = _needle(text)
        finder = PurgeFinder(self._conn)
        hits: dict[str, list] = {}
        vectors = index_entries = 0
        covered = self._all_profiles() if all_profiles else [(self._pid, self.profile.name)]
        for pid, _ in covered:
            plan = finder.by_text(pid, needle)
            for tier, rows in plan.hits.items():
                hits.setdefault(tier, []).extend(rows)
            vectors += finder.vector_rows(plan)
            index_entries += len(plan.deleted()) + len(plan.neighbours)
        return ForgetPreview(
            needle,
            {tier: tuple(rows) for tier, rows in hits.items()},
            vectors=vectors,
            index_entries=index_entries,
            profiles=tuple(name for _, name in covered),
            elsewhere={} if all_profiles else self._elsewhere(finder, needle),
        )

    def forget(
        self, text: str, *, backups: BackupPolicy = "scrub", all_profiles: bool = False
    ) -> ForgetReceipt:
        """Delete everything that mentions ``text``, for real, and scrub the file.

        Args:
            text: the words to forget (matched case-insensitively, anywhere in a row).
            backups: what to do with backups next to the data file that hold the words:
                ``scrub`` them the same way (the default), ``delete`` them, or ``keep``.
            all_profiles: forget it in every profile; by default only in this one (the
                receipt says which other profiles still mention it).
        """
        needle = _needle(text)
        covered = self._all_profiles() if all_profiles else [(self._pid, self.profile.name)]
        finder = PurgeFinder(self._conn)
        elsewhere = {} if all_profiles else self._elsewhere(finder, needle)
        where = ForgetPreview(needle, {}, profiles=tuple(n for _, n in covered)).where
        return self._carry_out(
            f"everything mentioning {needle!r} {where}",
            lambda finder, pid: finder.by_text(pid, needle),
            backups,
            profiles=covered,
            notes=_elsewhere_notes(elsewhere),
        )

    def _all_profiles(self) -> list[tuple[int, str]]:
        return [tuple(row) for row in self._conn().execute("SELECT id, name FROM profiles")]

    def _elsewhere(self, finder: PurgeFinder, needle: str) -> dict[str, int]:
        """Rows mentioning ``needle`` in the other profiles, by name (those with any)."""
        found = {}
        for pid, name in self._all_profiles():
            if pid != self._pid and (hits := finder.by_text(pid, needle).hits):
                found[name] = sum(len(rows) for rows in hits.values())
        return found

    def delete_session(self, session_id: int, *, backups: BackupPolicy = "scrub") -> ForgetReceipt:
        """Delete a session with everything derived from it only, and scrub the file.

        Raises:
            HippoError: there is no such session in this profile.
        """
        self._engine.session(session_id)
        return self._carry_out(
            f"session {session_id}",
            lambda finder, pid: finder.by_sessions(pid, [session_id]),
            backups,
        )

    def end_session(self, session_id: int) -> ForgetReceipt | None:
        """Leave a session: an incognito one is deleted with all it left; others stay (None)."""
        if not self._engine.session(session_id).incognito:
            return None
        return self.delete_session(session_id)

    def purge_incognito(self, *, keep: Iterable[int] = ()) -> ForgetReceipt | None:
        """Delete incognito sessions left behind (a crash before ``end_session``), but ``keep``.

        Call it at start-up; returns None when there was nothing to delete.
        """
        ids = [s for s in self._incognito_sessions() if s not in set(keep)]
        if not ids:
            return None
        return self._carry_out(
            f"{len(ids)} incognito session(s)",
            lambda finder, pid: finder.by_sessions(pid, ids),
            "scrub",
        )

    def delete_event(self, event_id: int) -> ForgetReceipt:
        """Delete an event (and facts whose only evidence it was).

        Raises:
            StorageError: there is no such event in this profile.
        """
        return self._delete_items("event", [event_id], f"event {event_id}")

    def delete_document(self, document_id: int) -> ForgetReceipt:
        """Delete an ingested document with its chunks (and facts citing only them)."""
        return self._delete_items("document", [document_id], f"document {document_id}")

    def delete_episode(self, episode_id: int) -> ForgetReceipt:
        """Delete an episode (and facts whose only evidence it was); its messages stay."""
        return self._delete_items("episode", [episode_id], f"episode {episode_id}")

    def _delete_items(
        self, kind: str, ids: Iterable[int], what: str, *, scrub: bool = False
    ) -> ForgetReceipt:
        """Delete items by id (with what goes with them); ``scrub`` also housekeeps the file.

        Raises:
            StorageError: none of them is in this profile.
        """
        plan = PurgeFinder(self._conn).by_items(self._pid, kind, ids)
        if not (plan.documents if kind == "document" else plan.items[kind]):
            raise NotFound(
                f"There is no {what} in this profile. List them with `hippo memory "
                f"{'list' if kind == 'fact' else kind + 's'}`."
            )
        counts, vectors, index_rows = PurgeRunner(self._conn, self._engine.clock).run(
            plan, self._pid
        )
        steps = housekeep(self._conn()) if scrub else ()
        ordered = {tier: counts.get(tier, 0) for tier in TIERS}
        return ForgetReceipt(what, ordered, vectors, index_rows, steps, verb="Deleted")

    def _incognito_sessions(self) -> list[int]:
        rows = self._conn().execute(
            "SELECT id FROM sessions WHERE profile_id = ? AND incognito = 1", (self._pid,)
        )
        return [row[0] for row in rows]

    def _carry_out(
        self,
        what: str,
        replan: Replan,
        backups: BackupPolicy,
        *,
        profiles: list[tuple[int, str]] | None = None,
        notes: tuple[str, ...] = (),
    ) -> ForgetReceipt:
        profiles = profiles or [(self._pid, self.profile.name)]
        counts: dict[str, int] = {}
        vectors = index_rows = 0
        runner = PurgeRunner(self._conn, self._engine.clock)
        for pid, _ in profiles:
            done, found_vectors, found_rows = runner.run(replan(PurgeFinder(self._conn), pid), pid)
            for tier, n in done.items():
                counts[tier] = counts.get(tier, 0) + n
            vectors, index_rows = vectors + found_vectors, index_rows + found_rows
        steps = housekeep(self._conn())
        names = [name for _, name in profiles]
        touched, backup_notes = self._backups(replan, backups, names)
        ordered = {tier: counts.get(tier, 0) for tier in TIERS}
        return ForgetReceipt(
            what, ordered, vectors, index_rows, steps, touched, (*backup_notes, *notes)
        )

    def _backups(
        self, replan: Replan, policy: BackupPolicy, profiles: list[str]
    ) -> tuple[tuple[Path, ...], tuple[str, ...]]:
        folder = self._engine.db.path.parent / BACKUP_FOLDER
        files = sorted(folder.glob("*.db")) if folder.is_dir() else []
        touched: list[Path] = []
        failed: list[Path] = []
        for path in files:
            try:
                if policy != "keep" and _holds_it(
                    path, profiles, replan, self._engine, scrub=policy == "scrub"
                ):
                    touched.append(path)
            except (HippoError, apsw.Error, OSError):
                failed.append(path)
        if policy == "delete":
            failed += touched
        for path in failed:
            for extra in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    Path(f"{path}{extra}").unlink()
        return tuple(touched), _backup_notes(folder, policy, touched, failed)


def _holds_it(
    path: Path, profiles: list[str], replan: Replan, engine: Hippo, *, scrub: bool
) -> bool:
    """Whether a backup holds any of it in ``profiles``; with ``scrub``, forget it there too."""
    clock = engine.clock
    conn = connect(path, keys=engine.db.keys)  # a backup has the data file's key
    held = False
    try:
        for profile in profiles:
            row = conn.execute("SELECT id FROM profiles WHERE name = ?", (profile,)).fetchone()
            if row is None:
                continue
            plan = replan(PurgeFinder(lambda: conn), row[0])
            if plan.empty:
                continue
            held = True
            if scrub:
                PurgeRunner(lambda: conn, clock).run(plan, row[0])
        if held and scrub:
            housekeep(conn)
        return held
    finally:
        conn.close()


def _elsewhere_notes(elsewhere: dict[str, int]) -> tuple[str, ...]:
    """What a one-profile forget left in other profiles, and how to forget it there."""
    if not elsewhere:
        return ()
    held = ", ".join(f"{name!r} ({n} row(s))" for name, n in elsewhere.items())
    return (
        f"Other profiles were left as they are and still mention it: {held}. Forget it there "
        "too with `hippo memory forget TEXT --all-profiles`.",
    )


def _backup_notes(
    folder: Path, policy: str, touched: list[Path], failed: list[Path]
) -> tuple[str, ...]:
    if policy == "keep":
        return (f"Backups in {folder} were left as they are, as asked: they may still hold it.",)
    notes = []
    if touched and policy == "scrub":
        notes.append(
            f"Backups: {len(touched)} in {folder} held it and were scrubbed the same way; they "
            "are kept, since they let a night's consolidation be undone."
        )
    if failed:
        notes.append(f"Backups: {len(failed)} in {folder} were deleted.")
    notes.append(
        "Copies you saved elsewhere (e.g. `hippo memory backup PATH`) are not touched: "
        "delete those yourself."
    )
    return tuple(notes)
