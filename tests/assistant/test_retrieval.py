"""Message retrieval: what the index holds, how candidates are scored, and the priors."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from assistant.clock import ManualClock
from assistant.memory.messages import MessageStore
from assistant.memory.retrieval import Query, Retriever
from assistant.memory.scoring import (
    RetrievalWeights,
    asks_about_now,
    coverage,
    coverage_terms,
    relevance,
    terms,
)
from assistant.memory.textindex import fts_query, index_text
from assistant.memory.tiers import MessageTier
from assistant.memory.vectors import VectorStore
from data_schema.connect import Database

START = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
DIM = 4


class Archive:
    """A message store, its vectors and a retriever over one temporary file."""

    def __init__(self, db: Database, clock: ManualClock) -> None:
        self.clock = clock
        self.store = MessageStore(lambda: db.conn, clock)
        self.vectors = VectorStore(lambda: db.conn, clock)
        self.profile = self.store.profile("default")
        self.model = None
        self.retriever = Retriever([MessageTier(self.store)], self.vectors, lambda: self.model)

    def session(self, turns, *, at=START):
        """Store (speaker, text) turns a minute apart; return their message ids."""
        session = self.store.create_session(self.profile.id, started_at=at)
        return [
            self.store.add_message(
                session.id, "user", text, speaker=speaker, created_at=at + timedelta(minutes=i)
            ).id
            for i, (speaker, text) in enumerate(turns)
        ]

    def embed(self, vectors: dict[int, list[float]]) -> None:
        """Give messages chosen vectors (unit length)."""
        self.model = self.vectors.ensure_model("test", DIM)
        pending = {p.item_id: p for p in self.vectors.pending(1000, self.clock.now())}
        items = [pending[i] for i in vectors]
        self.vectors.store(self.model, items, [_unit(v) for v in vectors.values()])

    def recall(self, text, vector=None, trust=1.0, gap=None, **weights):
        self.retriever.weights = replace(RetrievalWeights(), **weights)
        query = Query(
            text,
            self.profile.id,
            self.clock.now(),
            limit=10,
            kinds=("message",),
            vector=vector,
            vector_trust=trust,
            vector_gap=gap,
        )
        return self.retriever.retrieve(query)


def _unit(v):
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


@pytest.fixture
def archive(tmp_path):
    db = Database(tmp_path / "hippo.db")
    yield Archive(db, ManualClock(START + timedelta(days=30)))
    db.close()


# -- what the index holds ------------------------------------------------------------


def test_a_message_is_found_by_the_month_it_was_said_in(archive):
    (may,) = archive.session([("Caroline", "I went to a support group yesterday")])
    archive.session([("Caroline", "I went to a pottery class")], at=START + timedelta(days=60))
    hits = archive.store.keyword_search(archive.profile.id, "What happened in May 2023?", 10)
    assert hits[0][0] == may


def test_a_message_is_embedded_with_its_speaker_and_the_turn_it_replies_to(archive):
    archive.session([("Melanie", "How was the camping trip?"), ("Caroline", "Great, we hiked!")])
    (reply, *_) = archive.vectors.pending(10, archive.clock.now())
    assert reply.text == (
        "Caroline: Great, we hiked!\n(replying to Melanie: How was the camping trip?)"
    )


def test_a_chinese_word_split_by_a_particle_is_still_found(archive):
    (proposal,) = archive.session([("陈思远", "昨天在断桥求的婚，她答应了")])
    (other,) = archive.session([("林悦", "明天去看房子")], at=START + timedelta(days=1))
    # No bigram of the question ("求婚") is in the message ("求的婚"); its characters are.
    hits = [i for i, _ in archive.store.keyword_search(archive.profile.id, "哪天求婚的？", 10)]
    assert hits == [proposal, other]


def test_english_text_is_indexed_and_searched_by_its_words_alone():
    assert index_text("Siyuan moved to Hangzhou in March") == "Siyuan moved to Hangzhou in March"
    assert fts_query("Where does Siyuan live now?") == '"siyuan" OR "live" OR "now"'


# -- scoring -------------------------------------------------------------------------


def test_chinese_coverage_counts_characters_not_straddling_bigrams():
    query = "思远目前在哪座城市生活？"
    text = "我现在在杭州生活，这座城市很好"
    assert coverage(coverage_terms(query), coverage_terms(text)) > 0.5
    assert coverage(terms(query), terms(text)) <= 0.3


def test_similarity_counts_only_above_the_querys_background():
    weights = RetrievalWeights(keyword=0.0, vector=1.0, vector_floor=0.2)
    assert relevance(0.0, 0.6, weights) == pytest.approx(0.5)
    assert relevance(0.0, 0.6, weights, background=0.5) == pytest.approx(0.2)
    assert relevance(0.0, 0.45, weights, background=0.5) == 0.0


def test_a_lead_as_large_as_the_models_paraphrase_gap_counts_in_full():
    weights = RetrievalWeights(keyword=0.0, vector=1.0, vector_floor=0.2)
    # An e5-like model: every similarity between 0.8 and 0.95, paraphrases 0.04 ahead.
    assert relevance(0.0, 0.91, weights, background=0.87, gap=0.04) == pytest.approx(1.0)
    assert relevance(0.0, 0.89, weights, background=0.87, gap=0.04) == pytest.approx(0.5)
    # Measured against the room up to 1 instead, the same lead earned under a third.
    assert relevance(0.0, 0.91, weights, background=0.87) == pytest.approx(0.04 / 0.13)


def test_a_compressed_model_s_meaning_match_outranks_a_hit_on_a_name_alone(archive):
    fill = [("Tom", f"filler remark number {i}") for i in range(4)]
    noise, *fillers = archive.session([("Tom", "Anna loved her days at the pottery"), *fill])
    meant, *more = archive.session(
        [("Tom", "She started at the Berlin clinic last week"), *fill],
        at=START + timedelta(days=1),
    )
    fillers += more

    def at(cosine, axis):
        rest = [0.0] * DIM
        rest[axis] = (1 - cosine**2) ** 0.5
        return [cosine, *rest[1:]]

    # What e5 gives: the crowd at 0.87, the name-only hit a little above, the meaning
    # match 0.04 above it (as far as its paraphrases stand above unrelated text).
    archive.embed(
        {noise: at(0.88, 1), meant: at(0.91, 2)}
        | {f: at(0.87, 1 + i % 3) for i, f in enumerate(fillers)}
    )
    query = "Where does Anna work these days?"
    found = archive.recall(query, vector=[1.0, 0, 0, 0], gap=0.04)
    assert found[0].item_id == meant
    without_gap = archive.recall(query, vector=[1.0, 0, 0, 0])
    assert without_gap[0].item_id == noise


def test_untrusted_similarity_gives_its_weight_to_the_keyword_score():
    weights = RetrievalWeights(keyword=0.5, vector=0.5, vector_floor=0.2)
    assert relevance(0.4, 0.6, weights, trust=1.0) == pytest.approx(0.2 + 0.25)
    assert relevance(0.4, 0.6, weights, trust=0.0) == pytest.approx(0.4)
    assert relevance(0.4, 0.6, weights, trust=0.5) == pytest.approx(0.75 * 0.4 + 0.125)


@pytest.mark.parametrize(
    ("query", "hit_text", "near_text"),
    [
        ("passport renewal", "my passport expires in March", "a walk by the sea"),
        ("护照怎么续签？", "我的护照三月到期", "海边散步"),
    ],
)
def test_a_vector_list_the_model_cannot_read_does_not_outrank_keyword_evidence(
    archive, query, hit_text, near_text
):
    hit, near = archive.session([("A", hit_text), ("B", near_text)])
    # The query's vector lands on the unrelated message: how a blind model ranks.
    archive.embed({hit: [0, 1, 0, 0], near: [1, 0, 0, 0]})
    assert [m.item_id for m in archive.recall(query, [1, 0, 0, 0])] == [near, hit]
    # (The unrelated message still follows: it is found by its neighbour's words.)
    assert [m.item_id for m in archive.recall(query, [1, 0, 0, 0], trust=0.0)] == [hit, near]


def test_questions_about_the_present_are_recognised():
    assert asks_about_now("Where does Caroline live now?")
    assert asks_about_now("思远现在在哪家公司上班？")
    assert not asks_about_now("When did Caroline move to Sweden?")


def test_a_keyword_hit_outside_the_vector_top_n_keeps_its_similarity(archive):
    near, hit = archive.session([("A", "a walk by the sea"), ("B", "my passport expires soon")])
    archive.embed({near: [1, 0, 0, 0], hit: [0.6, 0.8, 0, 0]})
    (found,) = [
        m for m in archive.recall("passport", [1, 0, 0, 0], candidates=1) if m.item_id == hit
    ]
    assert found.vector == pytest.approx(0.6)


def test_nothing_is_recalled_unless_the_best_match_clears_the_floor(archive):
    archive.session([("A", "the cat sleeps on the sofa all afternoon")])
    assert archive.recall("cat dog bird fish horse cow sheep goat") == []


def test_weaker_matches_follow_a_clear_one(archive):
    strong, weak = archive.session(
        [
            ("A", "the dentist appointment is on Friday morning"),
            ("B", "my cousin works as a nurse downtown"),
        ]
    )
    found = [m.item_id for m in archive.recall("dentist appointment Friday nurse")]
    assert found == [strong, weak]
    assert archive.recall("dentist appointment Friday nurse", min_relevance=0.9) == []


def test_a_turn_said_on_the_date_a_question_names_covers_that_date(archive):
    day = datetime(2022, 11, 9, 18, 0, tzinfo=UTC)
    (that_day,) = archive.session([("Nate", "I cook pasta for my friends")], at=day)
    (later,) = archive.session([("Nate", "I cook pasta at home")], at=day + timedelta(days=40))
    found = {m.item_id: m for m in archive.recall("What did Nate cook on 9 November, 2022?")}
    assert found[that_day].keyword == pytest.approx(1.0)  # every term said, the date too
    assert found[later].keyword < 0.7 * found[that_day].keyword


# -- priors --------------------------------------------------------------------------


def test_turns_by_the_person_a_question_names_come_first(archive):
    melanie, caroline = archive.session(
        [
            ("Melanie", "Caroline, I love painting, painting sunsets!"),
            ("Caroline", "I love painting sunsets by the lake in summer"),
        ]
    )
    found = [m.item_id for m in archive.recall("What does Caroline love painting?")]
    assert found[0] == caroline
    found = [m.item_id for m in archive.recall("What does Caroline love painting?", speaker=0.0)]
    assert found[0] == melanie


def test_a_turn_takes_a_share_of_its_neighbours_relevance(archive):
    question, answer, *_, distractor, _ = archive.session(
        [
            ("B", "How was it?"),
            ("A", "Great, thanks."),
            ("B", "ok"),
            ("A", "ok then"),
            ("B", "Sure thing."),
            ("A", "See you."),
        ]
    )
    fillers = [i for i in range(question, question + 6) if i not in (question, answer, distractor)]
    # Only vectors match: the question turn closely, the answer and the distractor alike.
    archive.embed(
        {question: [1, 0, 0, 0], answer: [0.6, 0.8, 0, 0], distractor: [0.6, 0, 0.8, 0]}
        | {i: [0, 0, 0, 1] for i in fillers}
    )
    found = [m.item_id for m in archive.recall("zzz", [1, 0, 0, 0])]
    assert found.index(answer) < found.index(distractor)
    found = [m.item_id for m in archive.recall("zzz", [1, 0, 0, 0], neighbour=0.0)]
    assert found.index(answer) > found.index(distractor)  # the newer wins a tie


def test_a_question_about_the_present_prefers_the_newer_statement(archive):
    (old,) = archive.session([("Siyuan", "I live in Shenzhen now")])
    (new,) = archive.session(
        [("Siyuan", "I live in Hangzhou now since May")], at=START + timedelta(days=20)
    )
    found = [m.item_id for m in archive.recall("Where does Siyuan live now?", recency=0.0)]
    assert found[0] == new
    found = [
        m.item_id for m in archive.recall("Where does Siyuan live now?", recency=0.0, present=0.0)
    ]
    assert found[0] == old


def test_a_query_word_found_only_around_a_message_counts_for_part_of_its_coverage():
    query = terms("camping trip kids")
    said, around = terms("the kids loved the lake"), terms("how was the camping trip?")
    assert coverage(query, said) == pytest.approx(1 / 3)
    assert coverage(query, said, around, 0.3) == pytest.approx((1 + 0.3 * 2) / 3)


def test_a_conversation_that_bears_on_the_query_lends_its_other_turns_weight(archive):
    _, lent = archive.session(
        [("A", "we adopted a rescue dog named Biscuit"), ("B", "oh, a dog, tell me all about it")]
    )
    archive.session(
        [("C", "I love long walks"), ("D", "the rescue dog next door barked all night long")],
        at=START + timedelta(days=1),
    )
    alone = {"neighbour": 0.0, "context_coverage": 0.0}
    found = [m.item_id for m in archive.recall("rescue dog Biscuit adopted", **alone)]
    assert found[1] == lent
    found = [m.item_id for m in archive.recall("rescue dog Biscuit adopted", session=0.0, **alone)]
    assert found[1] != lent


def test_a_chinese_question_that_names_the_speaker_prefers_their_turns(archive):
    helper, user = archive.session([("助手", "你的猫土豆是橘猫吧？"), ("陈思远", "对，土豆是橘猫")])

    def scores(**weights):
        found = archive.recall("思远的猫土豆是什么猫？", **weights)
        return {m.item_id: m.score for m in found}

    with_prior, without = scores(), scores(speaker=0.0)
    assert with_prior[user] - without[user] == pytest.approx(0.1)
    assert with_prior[helper] == pytest.approx(without[helper])


def test_the_message_being_answered_does_not_scale_down_the_others(archive):
    # The message just sent is stored (and indexed) before its context is built; it
    # matches itself best of all, and is excluded, so it must not set the BM25 scale:
    # the best eligible hit keeps a BM25 share of 1, its keyword score its coverage.
    text = "Am I allergic to anything? Peanuts maybe?"
    (said,) = archive.session([("Mel", "I am allergic to peanuts.")])
    (asked,) = archive.session([("Mel", text)])
    query = Query(
        text,
        archive.profile.id,
        archive.clock.now(),
        kinds=("message",),
        exclude=frozenset({("message", asked)}),
    )
    (hit,) = archive.retriever.retrieve(query)
    assert hit.item_id == said
    said_terms = coverage_terms("Mel I am allergic to peanuts.")
    assert hit.keyword == pytest.approx(coverage(coverage_terms(text), said_terms))


def test_a_recall_reads_which_model_s_vectors_to_search_once_for_every_tier(archive):
    # Reading it is a query of the file; each tier, and steps within one, read it again.
    (said,) = archive.session([("Caroline", "We adopted a puppy called Oscar")])
    archive.embed({said: [1, 0, 0, 0]})
    model, reads = archive.model, []
    archive.retriever = Retriever(
        [MessageTier(archive.store)], archive.vectors, lambda: reads.append(model) or model
    )
    assert [m.item_id for m in archive.recall("What is the puppy called?", vector=[1, 0, 0, 0])]
    assert len(reads) == 1
