"""An embedding model whose vectors change size after vectors exist: doctor says so, search
and recall go on by words, and everything is embedded again."""

from __future__ import annotations

from assistant.cli import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_a_resized_embedding_model_is_reported_and_reembedded(ollama_up, capsys):
    assert _run(capsys, "ask", "my passport expires in March")[0] == 0
    assert _run(capsys, "embed")[0] == 0
    code, out, _ = _run(capsys, "doctor")
    assert code == 0 and "vector size" in out and "768 stored; 768 made now" in out

    ollama_up.resize_embeddings("embeddinggemma", 384)
    code, out, _ = _run(capsys, "doctor")
    assert code == 1 and "768 stored; 384 made now" in out
    assert "now makes vectors of 384 numbers, but the stored ones have 768" in out
    assert "Run `hippo embed`" in out

    code, out, err = _run(capsys, "search", "passport")
    assert code == 0 and "my passport expires in March" in out
    assert "now makes vectors of 384 numbers, not 768" in err
    code, out, _ = _run(capsys, "recall", "passport")
    assert code == 0 and "my passport expires in March" in out

    code, out, _ = _run(capsys, "embed")
    assert code == 0 and "still waiting" in out and "0 still waiting" in out
    code, out, _ = _run(capsys, "doctor")
    assert code == 0 and "384 stored; 384 made now" in out
