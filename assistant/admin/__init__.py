"""The memory inspector's engine side: see, search, correct, review, undo and forget.

``engine.admin`` is a `MemoryAdmin`: a small object that holds one part per job, each a
class of its own module, built (in `wiring`) with only the stores, clock and callables it
uses, so each reads and tests alone. Every call works in the engine's current profile.
None of them holds SQL: the stores own their tables, and what spans every table (forget,
export and import, counts) lives in `assistant.memory.profile_data`.

* ``facts`` (`FactsAdmin`): ``list``/``count`` (filters, FTS and semantic search,
  paging), ``get``, ``detail``, ``edit``, ``state``, ``remember``, ``pin``,
  ``mark_wrong``, ``mark_outdated``, ``delete``;
* ``review`` (`ReviewAdmin`): ``queue``, ``core_queue``, ``pending_count``, ``approve``,
  ``reject``, ``approve_core``, ``reject_core``, ``approve_all``, ``reject_all``;
* ``history`` (`HistoryAdmin`): ``changes``, ``undo``, ``believed`` (the as-of view);
* ``forget`` (`ForgetAdmin`): ``preview``/``text``, ``delete_session``, ``end_session``
  (incognito), ``purge_incognito``, ``delete_event``/``delete_document``/``delete_episode``;
* ``export`` (`ExportAdmin`): ``data``, ``markdown``, ``import_``, ``backup``, ``path``;
* ``activity`` (`ActivityAdmin`): ``per_day``, ``episodes_by_day``, ``stats``;
* ``storage`` (`StorageAdmin`): ``usage`` (where the file's bytes are),
  ``drop_vectors`` (of an embedding model no longer used);
* ``browse`` (`BrowseAdmin`): ``profiles``, ``sessions``, ``episodes``,
  ``session_episodes``, ``events``, ``event``, ``documents``, ``core_blocks``,
  ``edit_core``, ``search_messages`` (date filters), ``message``, ``memories_used``.

`MemoryAdmin` itself answers for the data file: ``file_damage`` (SQLite's quick check,
in words).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assistant.admin.activity import ActivityAdmin
from assistant.admin.browse import BrowseAdmin, UsedMemory
from assistant.admin.export import ExportAdmin, load_export
from assistant.admin.facts import FactsAdmin
from assistant.admin.forget import ForgetAdmin
from assistant.admin.history import HistoryAdmin
from assistant.admin.review import ReviewAdmin
from assistant.admin.storage import StorageAdmin, StorageUsage, VectorsDropped
from assistant.admin.views import (
    TIERS,
    AdminStats,
    Change,
    CoreReviewItem,
    DayActivity,
    DayEpisodes,
    EvidenceView,
    FactDetail,
    ForgetHit,
    ForgetPreview,
    ForgetReceipt,
    ImportReport,
    ReviewItem,
)
from assistant.memory.records import Profile

if TYPE_CHECKING:
    from data_schema.connect import Database

__all__ = [
    "TIERS",
    "ActivityAdmin",
    "AdminStats",
    "BrowseAdmin",
    "Change",
    "CoreReviewItem",
    "DayActivity",
    "DayEpisodes",
    "EvidenceView",
    "ExportAdmin",
    "FactDetail",
    "FactsAdmin",
    "ForgetAdmin",
    "ForgetHit",
    "ForgetPreview",
    "ForgetReceipt",
    "HistoryAdmin",
    "ImportReport",
    "MemoryAdmin",
    "ReviewAdmin",
    "ReviewItem",
    "StorageAdmin",
    "StorageUsage",
    "UsedMemory",
    "VectorsDropped",
    "load_export",
]


@dataclass(frozen=True, slots=True)
class MemoryAdmin:
    """See, search, correct, review, undo, forget, export and import one profile's memory.

    Build it with `assistant.admin.wiring.build_admin` (``engine.admin`` does).

    Attributes:
        facts: the fact table's listing and corrections.
        review: the review queue.
        history: every change, undo, and the as-of view.
        forget: forgets, deletes and incognito clean-up.
        export: export, import and backups.
        activity: per-day activity, the timeline, stats.
        browse: listings, core blocks, messages and what replies used.
        storage: where the data file's bytes are; vectors of unused models deleted.
    """

    facts: FactsAdmin
    review: ReviewAdmin
    history: HistoryAdmin
    forget: ForgetAdmin
    export: ExportAdmin
    activity: ActivityAdmin
    browse: BrowseAdmin
    storage: StorageAdmin
    current_profile: Callable[[], Profile]
    db: Database

    @property
    def profile(self) -> Profile:
        """The profile every call reads and changes (the engine's current one)."""
        return self.current_profile()

    def file_damage(self) -> str | None:
        """What SQLite's quick check finds wrong with the data file, in words (None: intact)."""
        from assistant.integrity import check_file

        damage = check_file(self.db.conn, self.db.path)
        if damage is not None:
            self.db.refuse_writes(damage)
        return damage
