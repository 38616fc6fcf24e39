"""A turn that refers back ("she", "there", "回去", "公司") leads to the turn that names it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import pytest

from assistant.clock import ManualClock
from assistant.memory.reference import (
    asked_kind,
    asks_for_name,
    pronoun_antecedents,
    refers_back,
)
from assistant.memory.retrieval import Query
from data_schema.connect import Database
from tests.assistant.test_retrieval import START, Archive, _unit


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


# -- a pronoun read with the name the speaker last said -------------------------------


@dataclass(frozen=True)
class _Said:
    item_id: int
    text: str
    speaker: str = "思远"
    at: datetime = START
    session_id: int | None = 1
    role: str = "user"


def _turns(*texts: tuple[str, str]) -> list[_Said]:
    """(speaker, text) turns a minute apart, ids from 1."""
    return [
        _Said(i, text, speaker, START + timedelta(minutes=i))
        for i, (speaker, text) in enumerate(texts, start=1)
    ]


_RELATION = "林悦现在和思远是什么关系？"


def test_a_pronoun_stands_for_what_the_speaker_last_named():
    turns = _turns(
        ("思远", "周浩在新加坡做风控"),
        ("思远", "林悦喜欢白色的洋桔梗"),
        ("助手", "记下了"),
        ("思远", "现在她是我未婚妻了"),
    )
    assert pronoun_antecedents(_RELATION, turns) == {4: 2}


def test_the_latest_naming_turn_is_the_antecedent_and_only_the_speakers_own_count():
    turns = _turns(
        ("思远", "林悦喜欢白色的洋桔梗"),
        ("思远", "周浩的关系网很广"),  # said last: "她" would stand for what it names
        ("助手", "林悦呢？"),
        ("思远", "现在她是我未婚妻了"),
    )
    assert pronoun_antecedents(_RELATION, turns) == {4: 2}
    assert pronoun_antecedents(_RELATION, [turns[0], turns[2], turns[3]]) == {4: 1}
    assert pronoun_antecedents(_RELATION, [turns[2], turns[3]]) == {}


def test_a_pronoun_after_a_name_in_its_own_turn_stands_for_that_name():
    turns = _turns(("思远", "周浩的关系网很广"), ("思远", "现在林悦说她要来"))
    assert pronoun_antecedents(_RELATION, turns) == {}


def test_now_is_no_name_a_pronoun_could_stand_for():
    turns = _turns(("思远", "我现在79公斤"), ("思远", "现在她是我未婚妻了"))
    assert pronoun_antecedents(_RELATION, turns) == {}


def test_a_pronoun_turn_that_shares_no_word_of_the_question_is_left_alone():
    turns = _turns(
        ("思远", "林悦喜欢白色的洋桔梗"),
        ("思远", "她哭得稀里哗啦，答应了"),
        ("思远", "大家都叫他老孟，什么都肯教"),  # 什么 asks; it is no shared word
    )
    assert pronoun_antecedents(_RELATION, turns) == {}


def test_the_naming_turn_is_looked_for_in_the_session_and_the_one_it_follows():
    named, _, fiancee = _turns(
        ("思远", "林悦喜欢白色的洋桔梗"), ("思远", "周末去买"), ("思远", "现在她是我未婚妻了")
    )
    named = replace(named, session_id=12)
    fiancee = replace(fiancee, session_id=13)
    asked: list[list[int]] = []

    def follows(sessions):
        asked.append(list(sessions))
        return {13: 12}

    assert pronoun_antecedents(_RELATION, [named, fiancee], follows) == {3: 1}
    assert asked == [[13]]
    older = pronoun_antecedents(_RELATION, [named, fiancee], lambda _: {13: 11})
    assert older == {}  # named two conversations ago: "她" is no longer her


def test_in_english_she_stands_for_the_friend_named_a_session_before():
    turns = _turns(
        ("Anna", "Maya and I met at the climbing gym years ago"),
        ("Tom", "Nice! How is the new job?"),
        ("Anna", "Now she is my fiancee, it still sounds strange"),
    )
    assert pronoun_antecedents("What is Maya to Anna now?", turns) == {3: 1}


def test_in_english_only_a_capitalised_name_is_what_a_pronoun_stands_for():
    turns = _turns(
        ("John", "A lot has happened since we last spoke"),
        ("Maria", "Tell me!"),
        ("John", "The roadways. They're full of potholes and damaging to cars"),
    )
    assert pronoun_antecedents("What damages have happened to Ben's car?", turns) == {}


def test_the_users_own_typed_turns_have_no_speaker_name_and_are_resolved_by_role():
    named, reply, fiancee = (
        _Said(1, "林悦喜欢白色的洋桔梗", "", START),
        _Said(2, "林悦一定会喜欢的", "", START + timedelta(minutes=1), role="assistant"),
        _Said(3, "现在她是我未婚妻了", "", START + timedelta(minutes=2)),
    )
    assert pronoun_antecedents(_RELATION, [named, reply, fiancee]) == {3: 1}
    assert pronoun_antecedents(_RELATION, [reply, fiancee]) == {}  # not the assistant's
    facts = [replace(m, session_id=None) for m in (named, fiancee)]
    assert pronoun_antecedents(_RELATION, facts) == {}  # said in no session: no turns


def _engagement(archive: Archive) -> tuple[int, int, int]:
    """Siyuan names Lin Yue, and next session says 她 for her; returns the three turns."""
    archive.session([("思远", "林悦说月底带土豆过来")], at=START - timedelta(days=20))
    (tea,) = archive.session(
        [("思远", "最近把咖啡戒了，现在每天就喝茶")], at=START - timedelta(days=12)
    )
    named, _ = archive.session(
        [("思远", "你帮我记着，林悦喜欢白色的洋桔梗"), ("助手", "记下了")],
        at=START - timedelta(days=9),
    )
    fiancee, _ = archive.session([("思远", "现在她是我未婚妻了哈哈"), ("助手", "恭喜！")])
    return named, tea, fiancee


def test_asked_about_someone_the_turn_that_says_she_for_them_ranks_with_their_name(archive):
    named, tea, fiancee = _engagement(archive)
    found = archive.recall(_RELATION)
    relevance = {m.item_id: m.relevance for m in found}
    assert found[0].item_id == fiancee  # it says 现在 and, by 她, 林悦: the most of the question
    assert relevance[fiancee] > relevance[named] > relevance[tea]


def test_a_pronoun_turn_takes_the_similarity_of_the_turn_that_names_the_person(archive):
    named, tea, fiancee = _engagement(archive)
    archive.embed({named: [1, 0, 0, 0], tea: [0, 1, 0, 0], fiancee: [0, 0, 1, 0]})
    found = archive.recall(_RELATION, vector=_unit([1, 0, 0, 0]))
    by_id = {m.item_id: m for m in found}
    assert by_id[fiancee].relevance > by_id[named].relevance > by_id[tea].relevance


def test_a_name_said_two_sessions_before_the_pronoun_is_not_what_it_stands_for(archive):
    named, _, fiancee = _engagement(archive)
    archive.session([("思远", "周末去买羽毛球拍")], at=START - timedelta(days=5))
    relevance = {m.item_id: m.relevance for m in archive.recall(_RELATION)}
    assert relevance[fiancee] < relevance[named]


def test_a_session_follows_the_one_whose_last_message_came_before_it(archive):
    (first,) = archive.session([("A", "one")], at=START - timedelta(days=3))
    (second,) = archive.session([("A", "two")], at=START - timedelta(days=1))
    (older,) = archive.session([("A", "imported")], at=START - timedelta(days=2))
    sessions = {m: archive.store.message(m).session_id for m in (first, second, older)}
    found = archive.store.previous_sessions(list(sessions.values()), archive.profile.id)
    assert found == {sessions[second]: sessions[older], sessions[older]: sessions[first]}


def test_a_speakers_name_is_neither_what_she_stands_for_nor_a_shared_word():
    turns = _turns(
        ("助手", "好的思远，晚安"),
        ("助手", "有她支持就好，思远什么时候回复？"),
        ("思远", "跟林悦去看房子"),
        ("思远", "群里说她要陈思远的卡号"),
    )
    assert pronoun_antecedents("思远现在和林悦住在哪里？", turns) == {}
