"""`hippo log --json` given lines it can't take: each reported by number, the rest logged."""

from __future__ import annotations

import io

from assistant.cli import main


def _log_json(capsys, monkeypatch, data: bytes) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["log", "--json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def _texts(engine) -> list[str]:
    return sorted(e.text for e in engine.admin.browse.events())


def test_a_line_that_is_not_utf8_is_reported_and_the_others_are_logged(
    engine, ollama_up, capsys, monkeypatch
):
    data = b'{"text": "bad \xff"}\n{"text": "ok D"}\n{"text": "ok E"}\n'
    code, out, err = _log_json(capsys, monkeypatch, data)
    assert code == 1 and out == "Logged 2 event(s).\n"
    assert err == "hippo: skipped line 1: not UTF-8 text (byte 0xff at column 15)\n"
    assert _texts(engine) == ["ok D", "ok E"]


def test_escapes_and_numbers_json_allows_but_hippo_cannot_store_are_reported(
    engine, ollama_up, capsys, monkeypatch
):
    lines = [
        r'{"text": "lone \ud800 surrogate"}',
        r'{"text": "fine \ud83d\ude00"}',
        '{"text": "n", "importance": NaN}',
        '{"text": "i", "ttl_hours": Infinity}',
        '{"text": "big", "ttl_hours": 1e308}',
        '{"text": "deep", "source": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"text": "last"}',
    ]
    code, out, err = _log_json(capsys, monkeypatch, "\n".join(lines).encode())
    assert code == 1 and out == "Logged 2 event(s).\n"
    said = err.splitlines()
    assert said[0] == (
        "hippo: skipped line 1: the text is not UTF-8 text (a lone surrogate U+D800 at character 6)"
    )
    assert said[1] == "hippo: skipped line 3: importance must be a finite number, not nan"
    assert said[2] == "hippo: skipped line 4: ttl_hours must be a finite number, not inf"
    assert said[3].startswith("hippo: skipped line 5: a value is out of range")
    assert said[4] == "hippo: skipped line 6: nested too deeply to read"
    assert _texts(engine) == ["fine 😀", "last"]
