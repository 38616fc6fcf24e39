"""A reply cut at the model's length limit stays marked cut in exports and through import."""

from __future__ import annotations

import re

from tests.fake_ollama import Reply


def test_a_cut_reply_is_marked_in_the_markdown_export_and_kept_cut_by_import(engine, fake_ollama):
    fake_ollama.script(
        Reply(content="Pack a rain jacket, and", done_reason="length"), Reply(content="Yes.")
    )
    session = engine.conversations.new_session()
    list(engine.send(session.id, "What should I pack?"))
    list(engine.send(session.id, "Is that all?"))
    text = engine.admin.export.markdown(with_data=False)
    marked = re.findall(r"^\*\*Hippo\*\* \(.*\):$", text, re.MULTILINE)
    assert [m.endswith(", cut short at the model's length limit):") for m in marked] == [
        True,
        False,
    ]
    data = engine.admin.export.data()
    report = engine.admin.export.import_(data, "restored")
    statuses = engine.memory.db.conn.execute(
        "SELECT role, status FROM messages WHERE profile_id = ? ORDER BY id",
        (report.profile.id,),
    ).fetchall()
    assert statuses == [
        ("user", "complete"),
        ("assistant", "cut"),
        ("user", "complete"),
        ("assistant", "complete"),
    ]
