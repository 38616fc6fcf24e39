"""An incognito chat never reaches the data file: not while open, not after a crash."""

from __future__ import annotations

import threading

from assistant.turns import MemoryUsed, ReplyDone
from data_schema.connect import connect
from tests.fake_ollama import Reply

SECRET = "I am secretly interviewing at Initech on Friday"


def _file_holds(db_path, text: str) -> list[str]:
    """Where a second connection (another shell's `hippo search`) finds ``text`` in the file."""
    conn = connect(db_path, migrate=False)
    try:
        found = []
        for table, column in (("messages", "content"), ("sessions", "title")):
            rows = conn.execute(
                f"SELECT count(*) FROM {table} WHERE {column} LIKE ?", (f"%{text}%",)
            )
            if rows.fetchone()[0]:
                found.append(table)
        (fts,) = conn.execute(
            "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", ('"Initech"',)
        ).fetchone()
        if fts:
            found.append("messages_fts")
        (incognito,) = conn.execute("SELECT count(*) FROM sessions WHERE incognito = 1").fetchone()
        if incognito:
            found.append("an incognito session")
        return found
    finally:
        conn.close()


def test_an_open_incognito_chat_is_not_in_the_file(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Good luck at Initech."))
    secret = engine.conversations.new_session(incognito=True)
    events = list(engine.send(secret.id, SECRET))
    assert isinstance(events[-1], ReplyDone)
    engine.background.embed_pending()
    # The chat still reads as a chat while it is open ...
    assert [m.content for m in engine.conversations.history(secret.id)] == [
        SECRET,
        "Good luck at Initech.",
    ]
    assert engine.conversations.session(secret.id).incognito
    # ... but another connection to the file finds none of it.
    assert _file_holds(config.db_path, "Initech") == []
    assert engine.memory.search_messages("Initech") == []


def test_a_crash_during_an_incognito_chat_leaves_nothing_in_the_file(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Still here."))
    secret = engine.conversations.new_session(incognito=True)
    cancel = threading.Event()
    turn = engine.send(secret.id, SECRET, cancel=cancel)
    next(turn)  # the message is saved, the reply streaming: the process dies here
    assert _file_holds(config.db_path, "Initech") == []


def test_memories_used_by_an_incognito_reply_are_shown_but_not_written(engine, fake_ollama):
    general = engine.conversations.new_session()
    fake_ollama.script(Reply(content="Noted."), Reply(content="You like tea."))
    list(engine.send(general.id, "I like green tea very much"))
    engine.background.embed_pending()
    secret = engine.conversations.new_session(incognito=True)
    events = list(engine.send(secret.id, "What do I like to drink, tea?"))
    used = next(e for e in events if isinstance(e, MemoryUsed))
    assert isinstance(events[-1], ReplyDone)
    assert len(engine.memory.memories_used(used.reply_id)) == len(used.memories)
    (rows,) = engine.memory.db.conn.execute(
        "SELECT count(*) FROM reply_memories WHERE message_id >= ?", (1 << 50,)
    ).fetchone()
    assert rows == 0


def test_leaving_an_incognito_chat_drops_it_from_memory(engine):
    secret = engine.conversations.new_session(incognito=True)
    engine.memory.messages.add_message(secret.id, "user", SECRET)
    assert engine.memory.messages.incognito.drop(secret.id) == 1
    assert engine.memory.messages.incognito.session_ids() == []


def test_ordinary_chats_still_go_to_the_file(engine, config, fake_ollama):
    fake_ollama.script(Reply(content="Hello."))
    session = engine.conversations.new_session()
    list(engine.send(session.id, "Remember Initech for me"))
    assert "messages" in _file_holds(config.db_path, "Initech")
