"""The background worker tries again within seconds after a busy moment, not at its idle pace."""

from __future__ import annotations

import logging
import time

import pytest

from assistant.memory.embedding import EmbeddingWorker
from assistant.wiring import build_worker
from data_schema.connect import connect

WAIT_S = 60.0  # only a failing test waits this long


@pytest.fixture
def busy_timeout_ms() -> int:
    # The write gives up on the busy file after this (Hippo waits 5 s): what is tested is
    # what the worker does after it gave up, not how long it waited.
    return 200


def _wait(predicate, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_write_refused_by_a_busy_file_is_tried_again_soon(tmp_path, parts, caplog):
    # Seen under load: another writer held the file past the busy timeout, and the worker
    # then rested its whole idle time (30 s) before trying again, holding up a re-embedding.
    memory = parts.memory
    session = parts.conversations.new_session()
    memory.messages.add_message(session.id, "user", "My sister Anna lives in Lyon")
    built = build_worker(memory, parts.host, parts.live_settings)
    worker = EmbeddingWorker(
        memory.vectors,
        memory.embedder,
        built.summaries,
        memory.clock,
        write_failed=memory.db.write_failed,
        idle_s=3600.0,  # nothing new will wake it: only its retry can
    )
    other = connect(tmp_path / "hippo.db", migrate=False)
    caplog.set_level(logging.WARNING, logger="assistant.memory.embedding")
    try:
        other.execute("BEGIN IMMEDIATE")  # another process writing, past the busy timeout
        worker.start()
        _wait(lambda: "background memory work failed" in caplog.text, "the busy write")
        other.execute("ROLLBACK")
        _wait(lambda: memory.vectors.queued() == 0, "the message to be embedded")
    finally:
        worker.stop()
        other.close()
