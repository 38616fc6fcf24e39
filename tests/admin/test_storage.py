"""Where the bytes are (`hippo memory stats`), and the vectors of an unused model deleted."""

from __future__ import annotations

import io
import json

import pytest

from assistant.cli import main
from assistant.errors import InvalidInput, NotFound
from tests.admin.helpers import seed


@pytest.fixture
def two_models(engine, tmp_path, fake_ollama, monkeypatch):
    """A seeded file whose memories were embedded by all-minilm, tried briefly, and by
    embeddinggemma, the model in use (here and in the `hippo` the CLI tests run)."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.host)
    seed(engine, tmp_path)
    engine.live_settings.use_models(embedding="all-minilm")
    engine.background.embed_pending(max_batches=None)
    engine.live_settings.use_models(embedding="embeddinggemma")
    engine.background.embed_pending(max_batches=None)
    return engine


def _tables(engine, model_id: int) -> list[str]:
    rows = engine.memory.db.conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'vec%' AND name LIKE ?",
        (f"%_m{model_id}%",),
    )
    return [name for (name,) in rows]


def test_usage_lists_each_models_vectors_and_which_is_in_use(two_models):
    usage = two_models.admin.storage.usage()

    models = {m.name: m for m in usage.models}
    assert set(models) == {"all-minilm:latest", "embeddinggemma:latest"}
    assert models["embeddinggemma:latest"].in_use and not models["all-minilm:latest"].in_use
    assert models["all-minilm:latest"].vectors == models["embeddinggemma:latest"].vectors > 0
    assert models["embeddinggemma:latest"].bytes > models["all-minilm:latest"].bytes > 0
    tiers = {t.tier: t for t in usage.tiers}
    assert tiers["messages"].rows == 6 and tiers["messages"].text_bytes > 0
    assert tiers["messages"].keyword_bytes > 0 and tiers["messages"].vector_bytes > 0
    counted = sum(t.text_bytes + t.keyword_bytes + t.vector_bytes for t in usage.tiers)
    assert counted + usage.other_bytes + usage.space.free_bytes == usage.space.total_bytes
    assert sum(m.bytes for m in usage.models) <= sum(t.vector_bytes for t in usage.tiers)


def test_deleting_an_unused_models_vectors_frees_its_tables(two_models):
    engine = two_models
    minilm = engine.memory.vectors.model("all-minilm:latest")
    assert minilm is not None and _tables(engine, minilm.id)

    done = engine.admin.storage.drop_vectors("all-minilm")

    assert done.vectors > 0 and done.compacted and done.after_bytes < done.before_bytes
    assert _tables(engine, minilm.id) == [] and engine.memory.vectors.model("all-minilm") is None
    (left,) = engine.memory.db.conn.execute(
        "SELECT count(*) FROM embeddings WHERE model_id = ?", (minilm.id,)
    ).fetchone()
    assert left == 0
    assert [m.name for m in engine.admin.storage.usage().models] == ["embeddinggemma:latest"]
    assert engine.memory.recall("Anna Berlin")  # memory is still searched with the model in use


def test_the_model_in_use_and_an_unknown_one_are_refused(two_models):
    engine = two_models
    with pytest.raises(InvalidInput, match="in use"):
        engine.admin.storage.drop_vectors("embeddinggemma:latest")
    with pytest.raises(NotFound, match="all-minilm:latest, embeddinggemma:latest"):
        engine.admin.storage.drop_vectors("nomic-embed-text")
    assert len(engine.admin.storage.usage().models) == 2  # nothing was deleted


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_stats_show_where_the_bytes_are_as_text_and_json(two_models, capsys):
    code, out, _ = _run(capsys, "memory", "stats")
    assert code == 0 and "Where the bytes are" in out
    assert "hippo db vectors delete all-minilm:latest" in out and "Backups: 0" in out

    code, out, _ = _run(capsys, "memory", "stats", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["counts"]["messages"] == 6
    assert {m["name"] for m in stats["models"]} == {"all-minilm:latest", "embeddinggemma:latest"}
    assert stats["file_bytes"] >= stats["bytes"]["vectors"] > 0
    assert {t["tier"] for t in stats["tiers"]} >= {"messages", "facts", "episodes"}
    assert stats["backups"] == {
        "folder": str(two_models.memory.db.path.parent / "backups"),
        "count": 0,
        "bytes": 0,
    }


def test_db_vectors_delete_asks_first_and_refuses_the_model_in_use(two_models, capsys, monkeypatch):
    listed = json.loads(_run(capsys, "db", "vectors", "list", "--json")[1])
    assert [m["in_use"] for m in listed] == [False, True]

    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, _ = _run(capsys, "db", "vectors", "delete", "all-minilm")
    assert code == 1 and "[y/N]" in out and "Nothing was deleted." in out
    assert two_models.memory.vectors.model("all-minilm:latest") is not None

    code, out, err = _run(capsys, "db", "vectors", "delete", "embeddinggemma")
    assert code == 1 and "in use" in err and "Traceback" not in err

    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code, out, _ = _run(capsys, "db", "vectors", "delete", "all-minilm")
    assert code == 0 and "Deleted" in out and "vectors of all-minilm:latest" in out
    assert two_models.memory.vectors.model("all-minilm:latest") is None
