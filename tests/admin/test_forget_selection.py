"""Deselecting lines of a forget's preview: exactly the selected rows go, and a kept fact is
never left without evidence."""

from __future__ import annotations

from datetime import timedelta

from assistant.memory.facts import Evidence
from assistant.memory.profile_data.census import tier_disagreements
from tests.admin.helpers import START, chat, file_bytes, remember, seed


def _key(preview, tier, item_id):
    (hit,) = [h for h in preview.hits.get(tier, ()) if h.item_id == item_id]
    return hit.key


def _cello(engine):
    """Two sessions that mention the cello, a fact drawn only from the first message."""
    first, said = chat(engine, START, "I started learning the cello.", "How exciting!")
    second, later = chat(engine, START + timedelta(days=1), "My cello teacher is strict.", "Ok.")
    fact = remember(engine, "The user plays a string instrument", Evidence("message", said[0].id))
    return first, said, second, later, fact


def test_a_deselected_message_stays_and_everything_else_selected_goes(engine, admin):
    _, said, _, later, _ = _cello(engine)
    full = admin.forget.preview("cello")

    preview = admin.forget.reselect(full, [_key(full, "messages", later[0].id)])
    receipt = admin.forget.text("cello", keep=[_key(full, "messages", later[0].id)])

    assert full.counts["messages"] == 2 and preview.counts["messages"] == 1
    assert preview.total == full.total - 1
    assert receipt.counts == preview.counts and receipt.total == preview.total
    left = engine.memory.messages.messages_by_id([said[0].id, later[0].id])
    assert list(left) == [later[0].id]
    assert any(line.startswith(f"messages {later[0].id}:") for line in receipt.kept)
    assert "Kept 1 row(s), as you chose:" in receipt.text()


def test_keeping_a_message_keeps_the_session_it_would_have_emptied(engine, admin):
    session, said = chat(engine, START, "Cello practice today.", "Enjoy the cello!")
    full = admin.forget.preview("cello")
    assert [h.item_id for h in full.hits["sessions"]] == [session.id]

    preview = admin.forget.reselect(full, [_key(full, "messages", said[0].id)])
    admin.forget.text("cello", keep=[_key(full, "messages", said[0].id)])

    assert preview.kept[f"sessions:{session.id}"] == f"message {said[0].id}, which stays, is in it"
    assert preview.counts["sessions"] == 0 and preview.counts["messages"] == 1
    assert [m.content for m in engine.conversations.history(session.id)] == [
        "Cello practice today."
    ]


def test_by_default_a_fact_goes_with_its_only_evidence_and_the_preview_says_why(engine, admin):
    _, _, _, _, fact = _cello(engine)

    preview = admin.forget.preview("cello")
    admin.forget.text("cello")

    (line,) = preview.hits["facts"]
    assert (line.item_id, line.why) == (fact.id, "all its evidence goes")
    assert admin.facts.count() == 0


def test_a_kept_fact_whose_evidence_goes_gets_the_users_choice_as_evidence(engine, admin):
    _, said, _, _, fact = _cello(engine)
    full = admin.forget.preview("cello")
    keep = [_key(full, "facts", fact.id)]

    preview = admin.forget.reselect(full, keep)
    receipt = admin.forget.text("cello", keep=keep)

    assert preview.vouched == (fact.id,) and preview.counts["facts"] == 0
    (lost,) = [h for h in preview.hits["evidence"] if h.latent]
    assert lost.text == f"message {said[0].id}" and preview.selected(lost)
    assert receipt.counts == preview.counts
    kept = admin.facts.get(fact.id)
    assert kept.status == "active" and kept.evidence == (Evidence("fact", fact.id),)
    assert [c.action for c in admin.facts.detail(fact.id).history][-1] == "keep"
    assert f"Fact {fact.id}: all its evidence was forgotten, so your choice" in receipt.text()
    assert b"cello" not in file_bytes(engine).lower()  # the record names nothing forgotten
    assert tier_disagreements(engine.memory.db.conn) == []  # `hippo doctor` finds it sound


def test_the_provenance_of_a_kept_fact_explains_its_evidence(engine, admin):
    _, _, _, _, fact = _cello(engine)
    full = admin.forget.preview("cello")
    admin.forget.text("cello", keep=[_key(full, "facts", fact.id)])

    (view,) = admin.facts.detail(fact.id).evidence

    assert view.source == "your choice" and not view.missing
    assert "kept" in view.text and view.at is not None


def test_a_fact_that_keeps_other_evidence_needs_no_vouching(engine, admin):
    _, said = chat(engine, START, "I play the cello.", "Nice.", "I practise every day.")
    fact = remember(
        engine,
        "The user practises an instrument daily",
        Evidence("message", said[0].id),
        Evidence("message", said[2].id),
    )
    full = admin.forget.preview("cello")
    assert [h.why for h in full.hits["evidence"]] == [f"fact {fact.id} keeps other evidence"]

    # Keeping the message keeps the evidence row that cites it.
    preview = admin.forget.reselect(full, [_key(full, "messages", said[0].id)])

    assert preview.kept[f"evidence:{fact.id}:message:{said[0].id}"] == "the message it cites stays"
    assert preview.counts["evidence"] == preview.counts["facts"] == 0 and not preview.vouched


def test_keeping_a_lost_evidence_row_keeps_the_message_it_cites(engine, admin):
    _, said, _, _, fact = _cello(engine)
    full = admin.forget.preview("cello")
    kept_fact = admin.forget.reselect(full, [_key(full, "facts", fact.id)])
    (lost,) = [h for h in kept_fact.hits["evidence"] if h.latent]

    preview = admin.forget.reselect(full, [_key(full, "facts", fact.id), lost.key])
    admin.forget.text("cello", keep=[_key(full, "facts", fact.id), lost.key])

    assert f"messages:{said[0].id}" in preview.kept and not preview.vouched
    assert admin.facts.get(fact.id).evidence == (Evidence("message", said[0].id),)


def test_counts_agree_whatever_is_kept(engine, admin, tmp_path):
    seed(engine, tmp_path)
    engine.background.embed_pending()
    full = admin.forget.preview("Berlin")
    keep = [hit.key for n, hit in full.numbered().items() if n % 2]

    preview = admin.forget.reselect(full, keep)
    receipt = admin.forget.text("Berlin", keep=keep)

    assert 0 < preview.total < full.total
    assert receipt.counts == preview.counts
    assert (receipt.vectors, receipt.index_entries) == (preview.vectors, preview.index_entries)
    assert len(receipt.kept) == len(preview.kept)
    assert all(admin.facts.get(fact_id).evidence for fact_id in preview.vouched)


def test_a_new_preview_with_the_same_keys_selects_the_same(engine, admin, tmp_path):
    seed(engine, tmp_path)
    full = admin.forget.preview("Berlin")
    keep = [hit.key for n, hit in full.numbered().items() if n % 3 == 0]

    again = admin.forget.preview("Berlin", keep=keep)

    assert again.kept == admin.forget.reselect(full, keep).kept
    assert [h.key for h in again.rows] == [h.key for h in admin.forget.reselect(full, keep).rows]


def test_keeping_everything_forgets_nothing(engine, admin):
    _cello(engine)
    full = admin.forget.preview("cello")
    before = admin.export.data()

    receipt = admin.forget.text("cello", keep=[h.key for h in full.rows])

    assert receipt.total == 0
    assert {**admin.export.data(), "exported_at": ""} == {**before, "exported_at": ""}


def test_latent_lines_are_numbered_after_the_rest_so_numbers_stay_the_same(engine, admin):
    _, _, _, _, fact = _cello(engine)
    full = admin.forget.preview("cello")

    kept = admin.forget.reselect(full, [_key(full, "facts", fact.id)])

    numbered = list(kept.numbered().values())
    assert [h.key for h in numbered[:-1]] == [h.key for h in full.numbered().values()]
    assert numbered[-1].latent and len(kept.rows) == len(full.rows) + 1


def test_a_kept_fact_survives_an_export_and_import_with_its_evidence(engine, admin):
    _, _, _, _, fact = _cello(engine)
    full = admin.forget.preview("cello")
    admin.forget.text("cello", keep=[_key(full, "facts", fact.id)])

    report = admin.export.import_(admin.export.data(), "restored")

    engine.memory.profile = report.profile
    (copy,) = engine.admin.facts.list(query="string instrument")
    assert report.warnings == () and copy.id != fact.id
    assert copy.evidence == (Evidence("fact", copy.id),)
    assert engine.admin.facts.detail(copy.id).evidence[0].source == "your choice"
