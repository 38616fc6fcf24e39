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
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import apsw

from assistant.admin.views import TIERS, ForgetHit, ForgetPreview, ForgetReceipt
from assistant.clock import Clock
from assistant.errors import HippoError, InvalidInput, NotFound
from assistant.memory.profile_data import Purge, PurgePlan
from assistant.memory.records import Profile, Session

if TYPE_CHECKING:
    from assistant.memory.messages import MessageStore
    from data_schema.cipher import KeySource

__all__ = ["BACKUP_FOLDER", "BackupPolicy", "ForgetAdmin"]

BACKUP_FOLDER = "backups"
BackupPolicy = Literal["scrub", "delete", "keep"]
Replan = Callable[[Purge, int], PurgePlan]


def _needle(text: str) -> str:
    needle = " ".join(text.split())
    if not needle:
        raise InvalidInput("Say what to forget: the text is empty.")
    return needle


class ForgetAdmin:
    """Previewing and carrying out forgets, session deletes and incognito clean-up.

    Args:
        purge: plans and carries out forgets in the data file.
        messages: the sessions (each delete checks the session is the profile's).
        profile: returns the profile every call works in.
        data_file: the data file (its backups lie in ``backups/`` beside it).
        keys: the data file's keys, which open its backups too.
        clock: the time source.
    """

    def __init__(
        self,
        purge: Purge,
        messages: MessageStore,
        profile: Callable[[], Profile],
        data_file: Path,
        keys: KeySource | None,
        clock: Clock,
    ) -> None:
        self._purge = purge
        self._messages = messages
        self._profile = profile
        self._backups = Path(data_file).parent / BACKUP_FOLDER
        self._keys = keys
        self._clock = clock

    @property
    def _pid(self) -> int:
        return self._profile().id

    def preview(
        self, text: str, *, all_profiles: bool = False, keep: Collection[str] = ()
    ) -> ForgetPreview:
        """Every row in every tier that ``text()`` would delete or rewrite, by tier.

        Args:
            text: the words to forget.
            all_profiles: cover every profile, not just this one; otherwise the preview
                counts what other profiles hold (``elsewhere``), which a forget leaves.
            keep: keys of lines to leave in place (see `reselect`).
        """
        needle = _needle(text)
        covered = self._covered(all_profiles)
        plans = tuple((pid, self._purge.finder.by_text(pid, needle)) for pid, _ in covered)
        elsewhere = {} if all_profiles else self._elsewhere(needle)
        return self._selected(needle, plans, keep, tuple(n for _, n in covered), elsewhere)

    def reselect(self, preview: ForgetPreview, keep: Collection[str]) -> ForgetPreview:
        """The same preview with only some lines selected: those whose keys are not in
        ``keep`` (with what must stay with the kept ones). It doesn't search again.

        Each line has a ``key`` that names it in later previews and in ``text(keep=)``;
        ``kept`` says why each line that stays stays.
        """
        return self._selected(
            preview.text, preview.plans, keep, preview.profiles, preview.elsewhere
        )

    def _selected(
        self,
        needle: str,
        plans: tuple[tuple[int, PurgePlan], ...],
        keep: Collection[str],
        profiles: tuple[str, ...],
        elsewhere: dict[str, int],
    ) -> ForgetPreview:
        hits: dict[str, list[ForgetHit]] = {}
        kept: dict[str, str] = {}
        vouched: list[int] = []
        vectors = index_entries = 0
        for pid, plan in plans:
            chosen = self._purge.selector.select(plan, pid, keep)
            for tier, rows in chosen.hits.items():
                hits.setdefault(tier, []).extend(rows)
            kept.update(chosen.kept)
            vouched += sorted(chosen.vouched)
            vectors += self._purge.plans.vector_rows(chosen)
            index_entries += len(chosen.deleted()) + len(chosen.neighbours)
        return ForgetPreview(
            needle,
            {tier: tuple(rows) for tier, rows in hits.items()},
            vectors=vectors,
            index_entries=index_entries,
            profiles=profiles,
            elsewhere=elsewhere,
            kept=kept,
            vouched=tuple(vouched),
            plans=plans,
        )

    def text(
        self,
        text: str,
        *,
        backups: BackupPolicy = "scrub",
        all_profiles: bool = False,
        keep: Collection[str] = (),
    ) -> ForgetReceipt:
        """Delete everything that mentions ``text``, for real, and scrub the file.

        Args:
            text: the words to forget (matched case-insensitively, anywhere in a row).
            backups: what to do with backups next to the data file that hold the words:
                ``scrub`` them the same way (the default), ``delete`` them, or ``keep``.
            all_profiles: forget it in every profile; by default only in this one (the
                receipt says which other profiles still mention it).
            keep: keys of preview lines to leave in place (``ForgetHit.key``); what they
                need stays too, and a kept fact whose evidence all goes gets the user's
                choice as its evidence. The receipt lists what was kept.
        """
        needle = _needle(text)
        covered = self._covered(all_profiles)
        elsewhere = {} if all_profiles else self._elsewhere(needle)
        where = ForgetPreview(needle, {}, profiles=tuple(n for _, n in covered)).where
        wanted = frozenset(keep)
        return self._carry_out(
            f"everything mentioning {needle!r} {where}",
            lambda purge, pid: purge.selector.select(
                purge.finder.by_text(pid, needle), pid, wanted
            ),
            backups,
            profiles=covered,
            notes=_elsewhere_notes(elsewhere),
        )

    def _covered(self, all_profiles: bool) -> list[tuple[int, str]]:
        if all_profiles:
            return self._purge.profiles()
        profile = self._profile()
        return [(profile.id, profile.name)]

    def _elsewhere(self, needle: str) -> dict[str, int]:
        """Rows mentioning ``needle`` in the other profiles, by name (those with any)."""
        found = {}
        for pid, name in self._purge.profiles():
            if pid != self._pid and (hits := self._purge.finder.by_text(pid, needle).hits):
                found[name] = sum(len(rows) for rows in hits.values())
        return found

    def _session(self, session_id: int) -> Session:
        """One session of the profile.

        Raises:
            NotFound: there is no such session.
            HippoError: it belongs to another profile.
        """
        session = self._messages.session(session_id)
        if session.profile_id != self._pid:
            raise NotFound(f"Session {session_id} belongs to another profile.")
        return session

    def delete_session(self, session_id: int, *, backups: BackupPolicy = "scrub") -> ForgetReceipt:
        """Delete a session with everything derived from it only, and scrub the file.

        Raises:
            NotFound: there is no such session in this profile.
        """
        self._session(session_id)
        return self._carry_out(
            f"session {session_id}",
            lambda purge, pid: purge.plans.by_sessions(pid, [session_id]),
            backups,
        )

    def end_session(self, session_id: int) -> ForgetReceipt | None:
        """Leave a session: an incognito one is deleted with all it left; others stay (None).

        An incognito chat lives in memory, never in the file: it is dropped from there.
        One an older Hippo wrote into the file is deleted from the file.
        """
        from assistant.memory.incognito import RoutedMessages, is_incognito_id

        if is_incognito_id(session_id) and isinstance(self._messages, RoutedMessages):
            self._messages.incognito.drop(session_id)
            return None
        if not self._session(session_id).incognito:
            return None
        return self.delete_session(session_id)

    def purge_incognito(self, *, keep: Iterable[int] = ()) -> ForgetReceipt | None:
        """Delete incognito sessions left behind (a crash before ``end_session``), but ``keep``.

        Call it at start-up; returns None when there was nothing to delete.
        """
        kept = set(keep)
        ids = [s for s in self._messages.incognito_sessions(self._pid) if s not in kept]
        if not ids:
            return None
        return self._carry_out(
            f"{len(ids)} incognito session(s)",
            lambda purge, pid: purge.plans.by_sessions(pid, ids),
            "scrub",
        )

    def delete_event(self, event_id: int) -> ForgetReceipt:
        """Delete an event (and facts whose only evidence it was).

        Raises:
            NotFound: there is no such event in this profile.
        """
        return self.delete_items("event", [event_id], f"event {event_id}")

    def delete_document(self, document_id: int) -> ForgetReceipt:
        """Delete an ingested document with its chunks (and facts citing only them)."""
        return self.delete_items("document", [document_id], f"document {document_id}")

    def delete_episode(self, episode_id: int) -> ForgetReceipt:
        """Delete an episode (and facts whose only evidence it was); its messages stay."""
        return self.delete_items("episode", [episode_id], f"episode {episode_id}")

    def delete_replies(self, ids: Sequence[int]) -> None:
        """Delete replies for good (``/retry``): an incognito chat's from memory, others from
        the file with their index, vectors and whatever was drawn only from them."""
        from assistant.memory.incognito import RoutedMessages, is_incognito_id

        if ids and is_incognito_id(ids[0]) and isinstance(self._messages, RoutedMessages):
            self._messages.incognito.delete_messages(list(ids))
        elif ids:
            self._purge.run(self._purge.plans.by_items(self._pid, "message", ids), self._pid)

    def delete_items(
        self, kind: str, ids: Iterable[int], what: str, *, scrub: bool = False
    ) -> ForgetReceipt:
        """Delete items by id (with what goes with them); ``scrub`` also housekeeps the file.

        Raises:
            NotFound: none of them is in this profile.
        """
        pid = self._pid
        plan = self._purge.plans.by_items(pid, kind, ids)
        if not (plan.documents if kind == "document" else plan.items[kind]):
            raise NotFound(
                f"There is no {what} in this profile. List them with `hippo memory "
                f"{'list' if kind == 'fact' else kind + 's'}`."
            )
        counts, vectors, index_rows = self._purge.run(plan, pid)
        steps = self._purge.housekeep() if scrub else ()
        ordered = {tier: counts.get(tier, 0) for tier in TIERS}
        return ForgetReceipt(what, ordered, vectors, index_rows, steps, verb="Deleted")

    def _carry_out(
        self,
        what: str,
        replan: Replan,
        backups: BackupPolicy,
        *,
        profiles: list[tuple[int, str]] | None = None,
        notes: tuple[str, ...] = (),
    ) -> ForgetReceipt:
        profiles = profiles or self._covered(False)
        counts: dict[str, int] = {}
        vectors = index_rows = 0
        kept: list[str] = []
        for pid, _ in profiles:
            plan = replan(self._purge, pid)
            kept += _kept_lines(plan)
            notes = (*notes, *_vouched_notes(plan))
            done, found_vectors, found_rows = self._purge.run(plan, pid)
            for tier, n in done.items():
                counts[tier] = counts.get(tier, 0) + n
            vectors, index_rows = vectors + found_vectors, index_rows + found_rows
        steps = self._purge.housekeep()
        names = [name for _, name in profiles]
        touched, backup_notes = self._scrub_backups(replan, backups, names)
        ordered = {tier: counts.get(tier, 0) for tier in TIERS}
        return ForgetReceipt(
            what,
            ordered,
            vectors,
            index_rows,
            steps,
            touched,
            (*backup_notes, *notes),
            kept=tuple(kept),
        )

    def _scrub_backups(
        self, replan: Replan, policy: BackupPolicy, profiles: list[str]
    ) -> tuple[tuple[Path, ...], tuple[str, ...]]:
        folder = self._backups
        files = sorted(folder.glob("*.db")) if folder.is_dir() else []
        touched: list[Path] = []
        failed: list[Path] = []
        for path in files:
            try:
                if policy != "keep" and self._holds_it(
                    path, profiles, replan, scrub=policy == "scrub"
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

    def _holds_it(self, path: Path, profiles: list[str], replan: Replan, *, scrub: bool) -> bool:
        """Whether a backup holds any of it in ``profiles``; with ``scrub``, forget it there too."""
        held = False
        with Purge.opened(path, self._keys, self._clock) as purge:
            for profile in profiles:
                pid = purge.profile_id(profile)
                if pid is None:
                    continue
                plan = replan(purge, pid)
                if plan.empty:
                    continue
                held = True
                if scrub:
                    purge.run(plan, pid)
            if held and scrub:
                purge.housekeep()
        return held


def _kept_lines(plan: PurgePlan) -> list[str]:
    """One line per row a forget left in place, and why."""
    lines = []
    for tier, hits in plan.hits.items():
        for hit in hits:
            if hit.key in plan.kept:
                said = " ".join(hit.text.split())
                said = said if len(said) <= 60 else said[:59] + "…"
                lines.append(f"{tier} {hit.item_id}: {said} ({plan.kept[hit.key]})")
    return lines


def _vouched_notes(plan: PurgePlan) -> list[str]:
    return [
        f"Fact {fact_id}: all its evidence was forgotten, so your choice to keep it is now "
        "its evidence (its provenance says so)."
        for fact_id in sorted(plan.vouched)
    ]


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
        "Copies you saved elsewhere (e.g. `hippo backup create PATH`) are not touched: "
        "delete those yourself."
    )
    return tuple(notes)
