"""Nothing an admin call does reaches another profile (cross-profile contamination defence)."""

from __future__ import annotations

from tests.admin.helpers import START, chat, file_bytes, seed


def _as(engine, name):
    """Switch the engine to profile ``name``; its admin follows (it reads the engine's)."""
    engine.profile = engine.messages.profile(name)
    return engine.admin


def test_admin_calls_never_touch_another_profile(engine, tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "p").mkdir()
    work = _as(engine, "work")
    seed(engine, tmp_path / "w")
    before = {**work.export(), "exported_at": ""}
    exported = work.export()

    admin = _as(engine, "default")
    mine = seed(engine, tmp_path / "p")
    chat(engine, START, "Incognito about Berlin.", "Ok.", incognito=True)
    admin.edit_fact(mine.pasta.id, statement="The user likes Berlin pizza")
    admin.pin(mine.sister.id)
    admin.mark_outdated(mine.sister.id)
    admin.undo(admin.history(limit=1)[0].id)
    admin.reject_all()
    admin.import_(exported, "copy")
    admin.purge_incognito()
    admin.delete_fact(mine.pasta.id)
    admin.delete_event(admin.events()[0].id)
    admin.delete_document(admin.documents()[0].id)
    admin.forget("Berlin")
    admin.delete_session(mine.cooking.id)

    assert {**_as(engine, "work").export(), "exported_at": ""} == before
    assert b"Zalando" in file_bytes(engine)  # the work profile still says it


def test_listings_and_searches_only_show_the_current_profile(engine, tmp_path):
    (tmp_path / "w").mkdir()
    _as(engine, "work")
    seed(engine, tmp_path / "w")
    work_facts = engine.admin.export()["facts"]
    admin = _as(engine, "default")

    assert admin.facts() == [] and admin.facts(query="Berlin") == []
    assert admin.count_facts() == 0 and admin.review_queue() == []
    assert admin.history() == [] and admin.events() == [] and admin.documents() == []
    assert admin.forget_preview("Berlin").empty
    assert admin.export()["facts"] == [] and len(work_facts) == 3
