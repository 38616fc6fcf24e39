"""The memory inspector's engine side: see, search, correct, review, undo and forget.

``MemoryAdmin(engine)`` (also ``engine.admin``) is the one object the Textual inspector
and the ``hippo memory`` commands use; it works in the engine's current profile only.
It is built up in layers, each a module of its own:

* ``forget``: ``forget_preview``/``forget``, ``delete_session``, ``end_session``
  (incognito), ``purge_incognito``, ``delete_event``/``delete_document``/``delete_episode``;
* ``facts``: ``facts``/``count_facts`` (filters, FTS and semantic search, paging),
  ``fact``, ``fact_detail``, ``edit_fact``, ``pin``, ``mark_wrong``, ``mark_outdated``,
  ``delete_fact``;
* ``review``: ``review_queue``, ``core_queue``, ``pending_count``, ``approve``,
  ``reject``, ``approve_core``, ``reject_core``, ``approve_all``, ``reject_all``;
* ``history``: ``history``, ``undo``, ``believed`` (the as-of view);
* ``export``: ``export``, ``export_markdown``, ``import_``, ``backup``, ``path``;
* ``activity``: ``activity``, ``episodes_by_day``, ``sessions``, ``episodes``,
  ``events``, ``documents``, ``stats``;
* ``browse``: ``core_blocks``, ``edit_core``, ``search_messages`` (date filters),
  ``memories_used`` (a reply's memories with their scores and text).
"""

from __future__ import annotations

from assistant.admin.browse import BrowseAdmin, UsedMemory
from assistant.admin.export import load_export
from assistant.admin.models import (
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

__all__ = [
    "TIERS",
    "AdminStats",
    "Change",
    "CoreReviewItem",
    "DayActivity",
    "DayEpisodes",
    "EvidenceView",
    "FactDetail",
    "ForgetHit",
    "ForgetPreview",
    "ForgetReceipt",
    "ImportReport",
    "MemoryAdmin",
    "ReviewItem",
    "UsedMemory",
    "load_export",
]


class MemoryAdmin(BrowseAdmin):
    """See, search, correct, review, undo, forget, export and import one profile's memory.

    Args:
        engine: the engine; every call works in its current profile, never another.
    """
