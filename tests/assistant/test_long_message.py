"""A long message is kept whole, searched in chunks, and never read whole by recall."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from assistant.memory.archival import ArchiveStore
from assistant.memory.long_text import HEAD_CHARS, message_path
from assistant.memory.retrieval import MemoryItem, Query, Retriever, Tier
from assistant.memory.scoring import READ_CHARS, coverage_terms, coverage_terms_of, window
from assistant.memory.summary import SUMMARY_PROMPT
from assistant.memory.working import working_memory
from assistant.tokens import estimate_tokens
from assistant.turns import MemoryUsed, PromptTooLong
from tests.fake_ollama import Reply

RARE = "quokkaburrow"
_LINES = (
    "The committee reviewed the harbour budget and the plans for the northern pier.",
    "Rain kept the market quiet, so the bakers sold their bread at half price by noon.",
    "Engineers measured the bridge again and found the cables in good condition.",
)


@pytest.fixture
def ollama_transport(fake_ollama):
    """Answered in process, with vectors cheap to make: a long message is many chunks."""
    dim = fake_ollama.embed_dim("embeddinggemma")
    fake_ollama.embed_as("embeddinggemma", lambda text: [1.0 + len(text) % 7] + [1.0] * (dim - 1))
    return fake_ollama.transport()


def long_text(chars: int) -> str:
    """Numbered lines of prose, about ``chars`` long, with ``RARE`` once in the middle."""
    lines, size, n = [], 0, 0
    while size < chars:
        line = f"{n}. {_LINES[n % len(_LINES)]} Item w{n * 7919 % 100_003}.\n"
        if size < chars // 2 <= size + len(line):
            line += f"The ferry to {RARE} island leaves from the northern pier at seven.\n"
        lines.append(line)
        size += len(line)
        n += 1
    return "".join(lines)


def _embedded(fake) -> list[str]:
    return [text for r in fake.requests if r.path == "/api/embed" for text in r.body["input"]]


def _send(engine, text: str) -> list[object]:
    session = engine.conversations.new_session()
    return list(engine.send(session.id, text))


@pytest.mark.heavy  # ~1,000 chunks cut, indexed and embedded: about 3 s of CPU
def test_a_1_mb_message_is_kept_whole_and_embedded_in_pieces(engine, fake_ollama):
    text = long_text(1_000_000)
    fake_ollama.script(Reply(content="Noted."))
    _send(engine, text)
    engine.background.embed_pending()
    said = engine.conversations.history(engine.conversations.last_session().id)[0]
    assert said.content == text  # the user's words, whole
    inputs = _embedded(fake_ollama)
    assert max(len(t) for t in inputs) <= HEAD_CHARS + 100  # none is the whole message
    assert sum(len(t) for t in inputs if "Item w" in t) >= len(text)  # all of it, in pieces
    assert any(RARE in t and len(t) < 2_000 for t in inputs)  # its middle, in a piece


class _Recording:
    """A tier that hands recall what the real one loads, and notes its length."""

    def __init__(self, tier: Tier, read: list[int]) -> None:
        self.kind = tier.kind
        self._tier, self._read = tier, read

    def keyword(self, query: Query, limit: int) -> list[tuple[int, float]]:
        return self._tier.keyword(query, limit)

    def load(self, ids: Sequence[int], query: Query) -> dict[int, MemoryItem]:
        found = self._tier.load(ids, query)
        self._read += [len(m.text) + len(m.context) for m in found.values()]
        return found


def test_recall_reads_a_bounded_window_of_a_long_message_and_finds_its_middle(
    engine, fake_ollama, clock
):
    fake_ollama.script(Reply(content="Noted."))
    _send(engine, long_text(100_000))
    engine.background.embed_pending()
    clock.advance(hours=1)
    memory = engine.memory
    read: list[int] = []
    base = memory.retriever
    tiers = [_Recording(tier, read) for tier in base.tiers.values()]
    model = lambda: memory.vectors.model(memory.embedder.vector_key)  # noqa: E731
    retriever = Retriever(tiers, memory.vectors, model, base.weights)
    question = f"When does the ferry to {RARE} leave from the northern pier?"
    vector, _ = memory.embedder.query(question)
    found = retriever.retrieve(
        Query(question, memory.profile.id, clock.now(), limit=10, vector=vector)
    )
    assert read and max(read) <= 3 * HEAD_CHARS  # the message and its neighbours, bounded
    best = next(m for m in found if RARE in m.text)
    assert best.kind == "chunk" and best.source.startswith("you said, in a long message")


def test_a_later_question_recalls_the_passage_of_a_long_message(engine, fake_ollama, clock):
    fake_ollama.script(Reply(content="Noted."), Reply(content="At seven."))
    _send(engine, long_text(100_000))
    engine.background.embed_pending()
    clock.advance(hours=1)
    events = _send(engine, f"When does the ferry to {RARE} leave?")
    used = next(e for e in events if isinstance(e, MemoryUsed)).memories
    assert any(RARE in m.text and m.kind == "chunk" for _, m in used)
    system = [r.body for r in fake_ollama.requests if r.path == "/api/chat"][-1]["messages"][0]
    assert f"ferry to {RARE} island" in system["content"]


def test_a_message_longer_than_the_window_goes_cut_to_fit_with_a_warning(engine, fake_ollama):
    text = long_text(100_000)  # about 25,000 tokens; the model is given 8,192
    fake_ollama.script(Reply(content="Read it."))
    events = _send(engine, text)
    (warning,) = [e for e in events if isinstance(e, PromptTooLong)]
    assert warning.tokens > estimate_tokens(text) > warning.window
    sent = [r.body for r in fake_ollama.requests if r.path == "/api/chat"][-1]["messages"]
    assert sum(estimate_tokens(m["content"]) for m in sent) <= warning.window
    cut = sent[-1]["content"]
    assert cut.startswith(text[:1_000]) and cut.endswith(text[-500:])
    assert "left out here" in cut


def test_a_long_message_whose_chunks_were_cut_short_is_finished_by_the_next_turn(
    engine, fake_ollama
):
    memory = engine.memory
    session = engine.conversations.new_session()
    text = long_text(60_000)
    with memory.db.conn:  # as a turn stores it, then killed before its chunks
        said = memory.messages.add_message(session.id, "user", text)
        document = memory.archive.open_message(memory.profile.id, said.id, len(text), "a message")
    assert memory.archive.unkept_messages(memory.profile.id) == [(document, said.id)]
    fake_ollama.script(Reply(content="Hello."))
    _send(engine, "hello again")
    assert memory.archive.unkept_messages(memory.profile.id) == []
    chunks = memory.archive.chunks(document)
    assert len(chunks) > 10 and any(RARE in c.content for c in chunks)


def test_a_long_message_in_an_incognito_chat_leaves_no_chunks(engine, fake_ollama):
    session = engine.conversations.new_session(incognito=True)
    fake_ollama.script(Reply(content="Noted."))
    list(engine.send(session.id, long_text(40_000)))
    documents = engine.memory.archive.documents(engine.memory.profile.id)
    assert not [d for d in documents if d.path.startswith(message_path(0)[:-1])]


def test_scoring_reads_a_long_text_in_the_window_that_holds_the_query_terms():
    filler = "The bakers sold their bread at half price by noon.\n" * 20_000  # ~1 MB
    text = "Headword opens the paste.\n" + filler + f"The ferry to {RARE} leaves.\n" + filler
    found = coverage_terms_of([text], near=coverage_terms(f"ferry to {RARE}"))
    assert {RARE, "ferry"} <= found
    assert "headword" not in found  # the head is outside the window read
    assert len(window(text, frozenset({RARE}))) == READ_CHARS
    assert "headword" in coverage_terms_of([text])  # with no query: the head


def test_a_long_message_edited_away_takes_its_chunks_with_it(engine, fake_ollama):
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Noted."), Reply(content="Seven."))
    list(engine.send(session.id, long_text(40_000)))
    (old, _) = engine.conversations.history(session.id)
    archive, profile_id = engine.memory.archive, engine.memory.profile.id
    assert [d.path for d in archive.documents(profile_id)] == [message_path(old.id)]
    list(engine.edit_last(session.id, f"When does the ferry to {RARE} leave?"))
    assert archive.documents(profile_id) == []
    assert archive.keyword_search(profile_id, RARE, 5) == []


def test_a_long_turn_goes_into_the_running_summary_cut(engine, fake_ollama):
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Noted."), Reply(content="Fine."))
    list(engine.send(session.id, long_text(40_000)))  # ~10,000 tokens: leaves the prompt
    list(engine.send(session.id, "Thanks, that is all."))
    fake_ollama.script(Reply(content="The user pasted a harbour report."))
    engine.background.maintain()
    asked = [r.body["messages"] for r in fake_ollama.requests if r.path == "/api/chat"][-1]
    assert asked[0]["content"] == SUMMARY_PROMPT
    assert 2_000 < len(asked[1]["content"]) < 6_000
    assert engine.memory.messages.summary(session.id)[0] == "The user pasted a harbour report."


def test_chunk_search_skips_words_in_most_chunks_where_rarer_ones_remain(engine):
    memory = engine.memory
    archive = ArchiveStore(lambda: memory.db.conn, memory.clock, common_share=0.1, common_min=5)
    profile_id = memory.profile.id
    for i in range(30):
        archive.insert_note(profile_id, f"The committee met on day {i}.", title=f"day {i}")
    (wanted,) = archive.insert_note(profile_id, f"The committee chose {RARE}.", title="choice")
    found = archive.keyword_search(profile_id, f"committee {RARE}", 10)
    assert [i for i, _ in found] == [wanted]  # "committee" alone matches too many to rank
    assert len(archive.keyword_search(profile_id, "committee", 50)) == 31


def test_turns_after_a_long_message_do_not_read_it_but_its_summary_does(engine, fake_ollama):
    session = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Noted."), Reply(content="Fine."))
    text = long_text(40_000)  # ~10,000 tokens: more than half the 8,192-token window
    list(engine.send(session.id, text))
    list(engine.send(session.id, "Thanks, that is all."))
    messages = engine.memory.messages
    turn = working_memory(messages, session.id, "summary_buffer", 8_192)
    (long_one,) = [m for m in turn.to_summarise if m.role == "user"]
    assert len(long_one.content) < 100 and "long message" in long_one.content
    assert turn.turns[-1].content == "Fine."
    summary = working_memory(messages, session.id, "summary_buffer", 8_192, read_long=True)
    assert [m.content for m in summary.to_summarise if m.role == "user"] == [text]
