"""Nothing an admin call does reaches another profile (cross-profile contamination defence)."""

from __future__ import annotations

from tests.admin.helpers import START, chat, file_bytes, seed


def _as(engine, name):
    """Switch the engine to profile ``name``; its admin follows (it reads the engine's)."""
    engine.memory.profile = engine.memory.messages.profile(name)
    return engine.admin


def test_admin_calls_never_touch_another_profile(engine, tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "p").mkdir()
    work = _as(engine, "work")
    seed(engine, tmp_path / "w")
    before = {**work.export.data(), "exported_at": ""}
    exported = work.export.data()

    admin = _as(engine, "default")
    mine = seed(engine, tmp_path / "p")
    chat(engine, START, "Incognito about Berlin.", "Ok.", incognito=True)
    admin.facts.edit(mine.pasta.id, statement="The user likes Berlin pizza")
    admin.facts.pin(mine.sister.id)
    admin.facts.mark_outdated(mine.sister.id)
    admin.history.undo(admin.history.changes(limit=1)[0].id)
    admin.review.reject_all()
    admin.export.import_(exported, "copy")
    admin.forget.purge_incognito()
    admin.facts.delete(mine.pasta.id)
    admin.forget.delete_event(admin.browse.events()[0].id)
    admin.forget.delete_document(admin.browse.documents()[0].id)
    admin.forget.text("Berlin")
    admin.forget.delete_session(mine.cooking.id)

    assert {**_as(engine, "work").export.data(), "exported_at": ""} == before
    assert b"Zalando" in file_bytes(engine)  # the work profile still says it


def test_listings_and_searches_only_show_the_current_profile(engine, tmp_path):
    (tmp_path / "w").mkdir()
    _as(engine, "work")
    seed(engine, tmp_path / "w")
    work_facts = engine.admin.export.data()["facts"]
    admin = _as(engine, "default")

    assert admin.facts.list() == [] and admin.facts.list(query="Berlin") == []
    assert admin.facts.count() == 0 and admin.review.queue() == []
    assert (
        admin.history.changes() == []
        and admin.browse.events() == []
        and admin.browse.documents() == []
    )
    assert admin.forget.preview("Berlin").empty
    assert admin.export.data()["facts"] == [] and len(work_facts) == 3
