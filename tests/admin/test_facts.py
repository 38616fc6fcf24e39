"""The fact table: list, filter, search, page, drill down, edit, pin, mark, delete."""

from __future__ import annotations

import pytest

from assistant.errors import HippoError, NotFound
from assistant.memory.facts import Evidence
from assistant.memory.script_probe import PARAPHRASES
from tests.admin.helpers import START, chat, remember, seed
from tests.conftest import EMBEDDING_MODEL


def test_facts_are_listed_pinned_first_then_by_importance(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)
    admin.facts.pin(seeded.pasta.id)

    ids = [f.id for f in admin.facts.list()]

    assert ids == [seeded.pasta.id, seeded.moved.id, seeded.sister.id]


def test_facts_are_filtered_by_status_scope_and_source(engine, admin):
    _, said = chat(engine, START, "I run 5k at work lunch breaks.", "Great habit!")
    evidence = Evidence("message", said[0].id)
    work = remember(engine, "The user runs at lunch", evidence, scope="work")
    guess = remember(engine, "The user likes running", evidence, source="assistant_inferred")

    assert [f.id for f in admin.facts.list(scope="work")] == [work.id]
    assert [f.id for f in admin.facts.list(status="pending")] == [guess.id]
    assert [f.id for f in admin.facts.list(source_kind="assistant_inferred")] == [guess.id]
    assert admin.facts.count(status=("active", "pending")) == 2


def test_a_keyword_search_ranks_by_relevance_and_pages(engine, admin):
    _, said = chat(engine, START, "Notes on tea.", "Ok.")
    for n in range(30):
        remember(engine, f"Tea fact number {n} about green tea", Evidence("message", said[0].id))
    remember(engine, "Coffee is fine too", Evidence("message", said[0].id))

    first = admin.facts.list(query="green tea", limit=10)
    second = admin.facts.list(query="green tea", limit=10, offset=10)

    assert admin.facts.count(query="green tea") == 30
    assert len(first) == len(second) == 10
    assert not {f.id for f in first} & {f.id for f in second}
    assert admin.facts.list(query="coffee")[0].statement == "Coffee is fine too"
    assert admin.facts.list(query="???") == []


def test_a_semantic_search_finds_facts_by_their_vectors(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)
    engine.background.embed_pending()

    found = admin.facts.list(query="lives Berlin", semantic=True)

    assert found[0].id == seeded.moved.id
    assert admin.facts.count(query="lives Berlin", semantic=True) == len(found)


def test_a_semantic_search_falls_back_to_keywords_when_ollama_is_down(
    engine, admin, tmp_path, fake_ollama
):
    seeded = seed(engine, tmp_path)
    engine.background.embed_pending()
    fake_ollama.fail_next("/api/embed", "500", count=5)

    assert [f.id for f in admin.facts.list(query="carbonara", semantic=True)] == [seeded.pasta.id]


@pytest.mark.parametrize("reads", [True, False])
def test_a_semantic_search_takes_meaning_only_hits_from_a_model_that_reads_the_query(
    engine, admin, tmp_path, fake_ollama, reads
):
    seeded = seed(engine, tmp_path)
    pair = {s: i for pairs in PARAPHRASES.values() for i, pair in enumerate(pairs) for s in pair}

    def vectors(text: str) -> list[float]:
        """The query by the sister fact, sharing no word with it; English paraphrases each
        by its pair (a model that reads English) or all in one place (one that does not)."""
        if text in ("sibling abroad", seeded.sister.statement):
            axis = 20
        else:
            axis = pair.get(text, 21) if reads else 21
        return [1.0 if d == axis else 0.0 for d in range(24)]

    fake_ollama.embed_as(EMBEDDING_MODEL, vectors)
    engine.background.embed_pending()

    ids = [f.id for f in admin.facts.list(query="sibling abroad", semantic=True)]

    assert ids == ([seeded.sister.id] if reads else [])


def test_listing_reads_a_page_not_the_table_with_tens_of_thousands_of_facts(engine, admin):
    # What keeps the inspector quick at any size: a page of facts brings a page of rows
    # into Python, never the whole table. Counted rows, not seconds: a timed assertion
    # failed on a busy machine.
    chat(engine, START, "Lots of facts.", "Ok.")
    conn = engine.memory.db.conn
    with conn:
        conn.executemany(
            "INSERT INTO facts(profile_id, statement, source_kind, status, learned_at, importance)"
            " VALUES (?, ?, 'user_stated', ?, '2026-01-01T00:00:00.000000+00:00', ?)",
            [
                (engine.memory.profile.id, f"fact {n}", ("active", "pending")[n % 2], 1 + n % 10)
                for n in range(20000)
            ],
        )
    read = 0

    def counted(_cursor: object, row: tuple[object, ...]) -> tuple[object, ...]:
        nonlocal read
        read += 1
        return row

    conn.row_trace = counted
    try:
        page = admin.facts.list(status="active", limit=50, offset=5000)
        total = admin.facts.count(status="active")
        recent = admin.facts.list(order="recent", limit=50)
    finally:
        conn.row_trace = None

    assert len(page) == 50 and total == 10000 and len(recent) == 50
    assert read < 1000  # two pages, their evidence and a count; the table holds 20,000


def test_the_detail_shows_each_evidence_with_its_text_date_and_session(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    detail = admin.facts.detail(seeded.moved.id)

    (view,) = detail.evidence
    assert view.quote == "moved to Berlin"
    assert view.text == "My sister Anna moved to Berlin last spring."
    assert view.at == START and view.session_id == seeded.berlin.id
    assert view.source == "you said" and not view.missing
    assert [c.action for c in detail.history] == ["create", "update"]
    assert detail.proposed_by == "user" and detail.superseded_by is None


def test_the_detail_shows_what_a_fact_replaced_and_what_replaced_it(engine, admin):
    _, said = chat(engine, START, "I live in Lyon.", "Ok.", "I moved to Paris.", "Ok.")
    lyon = remember(engine, "The user lives in Lyon", Evidence("message", said[0].id))
    paris = remember(engine, "The user lives in Paris", Evidence("message", said[2].id))
    engine.memory.facts.supersede(lyon.id, paris.id, actor="sleep")

    assert admin.facts.detail(lyon.id).superseded_by.id == paris.id
    assert [f.id for f in admin.facts.detail(paris.id).supersedes] == [lyon.id]


def test_an_edit_is_a_user_stated_change_in_the_history(engine, admin):
    _, said = chat(engine, START, "I think I like jazz.", "Nice.")
    guess = remember(
        engine, "The user likes jazz", Evidence("message", said[0].id), source="assistant_inferred"
    )

    edited = admin.facts.edit(guess.id, statement="The user loves jazz piano", scope="music")

    assert edited.statement == "The user loves jazz piano" and edited.scope == "music"
    assert edited.source_kind == "user_stated" and edited.confidence >= 0.9
    change = admin.history.changes(limit=1)[0]
    assert (change.actor, change.action) == ("user", "edit")
    assert change.before_text == "The user likes jazz"
    assert change.after_text == "The user loves jazz piano"
    assert admin.facts.list(query="piano")[0].id == guess.id  # re-indexed


def test_an_edit_with_nothing_to_change_is_refused(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)
    with pytest.raises(HippoError, match="Nothing to change"):
        admin.facts.edit(seeded.pasta.id)


def test_pinning_and_unpinning_are_recorded(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    assert admin.facts.pin(seeded.pasta.id).pinned
    assert not admin.facts.pin(seeded.pasta.id, False).pinned
    assert [c.action for c in admin.history.changes(limit=2)] == ["unpin", "pin"]


def test_marking_a_fact_wrong_stops_its_use_and_keeps_its_history(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)

    wrong = admin.facts.mark_wrong(seeded.pasta.id)

    assert wrong.status == "rejected"
    assert seeded.pasta.id not in {
        f.id for f in engine.memory.facts.active_facts(engine.memory.profile.id)
    }
    assert admin.facts.detail(seeded.pasta.id).history[-1].action == "reject"


def test_marking_a_fact_outdated_ends_its_validity_now(engine, admin, tmp_path, clock):
    seeded = seed(engine, tmp_path)
    clock.advance(days=3)

    old = admin.facts.mark_outdated(seeded.moved.id)

    assert old.status == "expired" and old.valid_to == clock.now()
    assert admin.history.changes(limit=1)[0].action == "expire"
    assert seeded.moved.id not in {
        f.id for f in engine.memory.facts.active_facts(engine.memory.profile.id)
    }


def test_deleting_a_fact_removes_its_row_index_and_vectors(engine, admin, tmp_path):
    seeded = seed(engine, tmp_path)
    engine.background.embed_pending()
    conn = engine.memory.db.conn

    receipt = admin.facts.delete(seeded.pasta.id)

    assert receipt.counts["facts"] == 1 and receipt.vectors == 1
    with pytest.raises(NotFound):
        admin.facts.get(seeded.pasta.id)
    assert admin.facts.list(query="carbonara") == []
    assert conn.execute(
        "SELECT count(*) FROM fact_history WHERE fact_id = ?", (seeded.pasta.id,)
    ).fetchone() == (0,)
    assert conn.execute(
        "SELECT count(*) FROM embeddings WHERE kind = 'fact' AND item_id = ?", (seeded.pasta.id,)
    ).fetchone() == (0,)


@pytest.mark.parametrize(
    "call",
    [
        lambda a: a.facts.detail(999),
        lambda a: a.facts.edit(999, statement="x"),
        lambda a: a.facts.pin(999),
        lambda a: a.facts.mark_wrong(999),
        lambda a: a.facts.mark_outdated(999),
        lambda a: a.facts.delete(999),
        lambda a: a.review.approve(999),
        lambda a: a.review.reject(999),
    ],
)
def test_a_bad_fact_id_gives_a_clear_error(admin, call):
    with pytest.raises(NotFound, match="There is no fact 999 in this profile"):
        call(admin)
