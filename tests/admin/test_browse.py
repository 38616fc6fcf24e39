"""Core blocks, the message archive with dates, and what memories went into a reply."""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.errors import CoreMemoryError, NotFound
from tests.admin.helpers import START, seed


def test_core_blocks_are_edited_as_the_user_and_can_be_undone(engine, admin):
    admin.browse.edit_core("human", "Name: Sam.\nLives in Porto.")

    block = admin.browse.edit_core("human", "Name: Sam.", char_limit=50)

    assert (block.value, block.char_limit) == ("Name: Sam.", 50)
    assert admin.browse.core_blocks()["human"].value == "Name: Sam."
    change = admin.history.changes(kind="core", limit=1)[0]
    assert (change.actor, change.target) == ("user", "human")
    assert admin.history.undo(change.id, kind="core").value == "Name: Sam.\nLives in Porto."


def test_a_core_block_over_its_limit_is_refused(admin):
    with pytest.raises(CoreMemoryError, match="over its limit"):
        admin.browse.edit_core("human", "x" * 3000)


def test_the_archive_search_keeps_to_the_dates_given(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    everything = admin.browse.search_messages("Anna")
    later = admin.browse.search_messages("Anna carbonara", since=START + timedelta(days=1))

    assert {h.message.session_id for h in everything} == {seeded.berlin.id}
    assert {h.message.session_id for h in later} == {seeded.cooking.id}


def test_a_replys_memories_come_with_their_scores_and_text(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    (used,) = admin.browse.memories_used(seeded.messages[1].id)

    assert (used.use.kind, used.use.item_id, used.use.score) == ("fact", seeded.sister.id, 0.9)
    assert used.item.text == "The user has a sister called Anna"
    with pytest.raises(NotFound, match="no message 999"):
        admin.browse.memories_used(999)
