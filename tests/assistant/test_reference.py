"""A turn that refers back ("she", "there", "回去", "公司") leads to the turn that names it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from assistant.clock import ManualClock
from assistant.memory.reference import asked_kind, asks_for_name, refers_back
from assistant.memory.retrieval import Query
from data_schema.connect import Database
from tests.assistant.test_retrieval import START, Archive


@pytest.fixture
def archive(tmp_path):
    db = Database(tmp_path / "hippo.db")
    yield Archive(db, ManualClock(START + timedelta(days=30)))
    db.close()


def _found(archive: Archive, question: str) -> list[int]:
    return [m.item_id for m in archive.recall(question)]


# -- the words -------------------------------------------------------------------------


def test_pronouns_and_deictic_words_refer_back_and_other_words_do_not():
    assert refers_back("她跟我一起回去，第一次去见我爸妈")
    assert refers_back("yes, he's coming with me")
    assert refers_back("we stayed there a week")
    assert not refers_back("其他人都走了")  # 其他 is "other", not "he"
    assert not refers_back("I bought a new bike")
    assert not refers_back("公司在杭州滨江")


def test_the_bare_word_for_the_kind_a_question_asks_which_of_refers_back():
    assert asked_kind("思远现在在哪家公司上班？") == "公司"
    assert asked_kind("Which company does Anna work for?") == "company"
    assert refers_back("公司在杭州滨江", kind="公司")
    assert refers_back("The company is in Binjiang", kind="company")


def test_questions_that_ask_for_a_name_are_told_from_those_that_ask_when_or_what():
    assert asks_for_name("林悦第一次见思远父母是在哪座城市？")
    assert asks_for_name("Where did Anna go for the holidays?")
    assert asks_for_name("Who came with her?")
    assert not asks_for_name("思远是哪天向林悦求婚的？")
    assert not asks_for_name("Which day did she leave?")
    assert not asks_for_name("What did Anna cook?")
    assert asked_kind("思远和云杉数据的视频面试是在哪天？") is None


# -- which turn a turn continues -----------------------------------------------------


def test_a_turn_continues_the_same_speakers_turn_across_the_others_reply(archive):
    first, reply, then = archive.session([("A", "one"), ("B", "two"), ("A", "three")])
    (own,) = archive.session([("C", "four")])
    ids = [first, reply, then, own]
    found = archive.store.recall_candidates(ids, archive.profile.id, continues=True)
    assert found[then].continues == first
    assert archive.store.recall_candidates(ids, archive.profile.id)[then].continues is None
    assert found[first].continues is None
    assert found[reply].continues is None


def test_a_turn_after_someone_elses_two_turns_continues_nothing(archive):
    _, _, last = archive.session([("A", "one"), ("B", "two"), ("C", "three")])
    _, _, again = archive.session([("A", "one"), ("A", "two"), ("A", "three")])
    found = archive.store.recall_candidates([last, again], archive.profile.id, continues=True)
    assert found[last].continues is None
    assert found[again].continues is None  # the turn before is its own: a neighbour


# -- retrieval -------------------------------------------------------------------------


def _trip(archive: Archive) -> tuple[int, int]:
    """Siyuan names the city, then says "go back" for it; returns (naming, referring)."""
    archive.session([("思远", "周末去爬山了，天气不错")], at=START - timedelta(days=9))
    archive.session([("林悦", "林悦的爸妈来深圳玩了")], at=START - timedelta(days=8))
    named, _, referring = archive.session(
        [
            ("思远", "后天我就回衡阳过年了，高铁票抢到了"),
            ("助手", "抢到票就好，林悦呢？"),
            ("思远", "她跟我一起回去，第一次去见我爸妈，紧张得不行"),
        ]
    )
    return named, referring


def _relevance(archive: Archive, question: str) -> dict[int, float]:
    return {m.item_id: m.relevance for m in archive.recall(question)}


def test_asked_where_the_turn_that_says_go_back_lends_the_city_turn_its_relevance(archive):
    named, referring = _trip(archive)
    found = _found(archive, "林悦第一次见思远父母是在哪座城市？")
    assert set(found[:2]) == {referring, named}  # the city's turn shares no word with it
    relevance = _relevance(archive, "林悦第一次见思远父母是在哪座城市？")
    assert relevance[named] == relevance[referring] > 0


def test_asked_what_happened_the_turn_before_gets_nothing_from_it(archive):
    named, referring = _trip(archive)
    relevance = _relevance(archive, "林悦第一次见思远父母紧张吗？")
    assert relevance[named] < relevance[referring] / 10


def test_in_english_a_pronoun_leads_to_the_turn_that_names_the_place(archive):
    archive.session([("Tom", "My parents visited us in May")], at=START - timedelta(days=5))
    named, _, referring = archive.session(
        [
            ("Anna", "I'm flying to Lisbon on Friday!"),
            ("Tom", "Nice, is Ben coming?"),
            ("Anna", "Yes, he's coming with me to meet my parents"),
        ]
    )
    relevance = _relevance(archive, "Where did Ben meet Anna's parents?")
    assert relevance[named] == relevance[referring] > 0
    relevance = _relevance(archive, "How did Ben feel about meeting Anna's parents?")
    assert relevance[named] < relevance[referring] / 2


def test_the_company_said_bare_leads_to_the_turn_that_names_it(archive):
    archive.session([("思远", "公司年会抽奖抽到了耳机")], at=START - timedelta(days=5))
    named, _, bare = archive.session(
        [
            ("思远", "在云杉数据报到三天了，来跟你汇报一下"),
            ("助手", "恭喜开启新工作！感觉怎么样？"),
            ("思远", "公司在杭州滨江，走路十五分钟到公司"),
        ]
    )
    relevance = _relevance(archive, "思远现在在哪家公司上班？")
    assert relevance[named] == relevance[bare] > 0


def test_a_turn_the_question_already_excludes_is_not_brought_back(archive):
    named, referring = _trip(archive)
    query = Query(
        "林悦第一次见思远父母是在哪座城市？",
        archive.profile.id,
        archive.clock.now(),
        kinds=("message",),
        exclude=frozenset({("message", named)}),
    )
    found = [m.item_id for m in archive.retriever.retrieve(query)]
    assert referring in found
    assert named not in found
