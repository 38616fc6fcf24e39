"""The paraphrase probe: how far an embedding model's similarities are trusted, per script."""

from __future__ import annotations

import pytest

from assistant.errors import OllamaError
from assistant.memory.script_probe import PARAPHRASES, ReadingProbe, paraphrase_margin, script

_PAIR = {s: i for pairs in PARAPHRASES.values() for i, pair in enumerate(pairs) for s in pair}


def _reads(model, texts, purpose="document"):
    """A model that places each sentence next to its paraphrase, away from the others."""
    return [[1.0 if d == _PAIR[t] else 0.1 for d in range(8)] for t in texts]


def _blind(model, texts, purpose="document"):
    """A model that sees only that a text is Chinese: one corner for all of them."""
    return [[1.0, 0.05 * (len(t) % 3), 0.0] for t in texts]


def test_a_query_is_probed_in_the_script_most_of_its_letters_are_in():
    assert script("思远现在在哪家公司上班？") == "han"
    assert script("思远现在用 Go 写代码吗？") == "han"
    assert script("Where does Siyuan live now?") == "latin"
    assert script("2026-04-05 ?!") is None


def test_paraphrases_that_stand_out_earn_full_trust_and_a_blind_model_none():
    probe = ReadingProbe(_reads)
    assert probe.trust("m", "思远现在在哪家公司上班？") == 1.0
    assert probe.trust("m", "Where does Siyuan live now?") == 1.0
    assert ReadingProbe(_blind).trust("m", "思远现在在哪家公司上班？") == 0.0


def test_the_margin_is_the_paraphrases_lead_over_the_room_above_the_others():
    same = [[1.0, 0.0], [0.0, 1.0]]
    assert paraphrase_margin(same, same) == pytest.approx(1.0)
    alike = [[1.0, 1.0], [1.0, 1.0]]  # every sentence as close to every other
    assert paraphrase_margin(same, alike) == pytest.approx(0.0)


def test_the_probe_runs_once_per_model_and_script():
    asked = []

    def embed(model, texts, purpose):
        asked.append((model, purpose))
        return _reads(model, texts)

    probe = ReadingProbe(embed)
    for text in ("思远在哪？", "林悦呢？", "Where is he?", "And she?"):
        probe.trust("m", text)
    probe.trust("other", "思远在哪？")
    # Each probe asks the first of each pair as queries, the second as stored text.
    assert asked == [("m", "query"), ("m", "document")] * 2 + [
        ("other", "query"),
        ("other", "document"),
    ]


def test_a_model_that_cannot_be_asked_keeps_full_trust_and_is_asked_again():
    calls = []

    def down(model, texts, purpose):
        calls.append(model)
        raise OllamaError("down")

    probe = ReadingProbe(down)
    assert probe.trust("m", "思远在哪？") == 1.0
    assert probe.trust("m", "思远在哪？") == 1.0
    assert len(calls) == 2


def test_text_in_a_script_without_paraphrases_keeps_full_trust():
    probe = ReadingProbe(_blind)
    assert probe.trust("m", "서울에 살아요") == 1.0


def test_an_answer_kept_in_the_data_file_spares_the_next_run_the_probe(tmp_path):
    from assistant.clock import ManualClock
    from assistant.memory.script_probe import ReadingStore
    from data_schema.connect import Database

    db = Database(tmp_path / "hippo.db")
    kept = ReadingStore(lambda: db.conn, ManualClock())
    assert ReadingProbe(_blind, kept).trust("m", "思远在哪？") == 0.0
    assert kept.reading("m", "han").trust == 0.0 and kept.reading("m", "latin") is None

    def down(model, texts, purpose):
        raise AssertionError("the probe ran again")

    later = ReadingProbe(down, ReadingStore(lambda: db.conn, ManualClock()))
    assert later.trust("m", "林悦呢？") == 0.0
    db.close()


def test_the_probe_measures_how_far_in_cosine_a_model_puts_paraphrases_above_the_rest():
    def packed(model, texts, purpose="document"):
        """A model that reads, on a small scale: paraphrases 0.9, the others 0.85."""
        vectors = []
        for t in texts:
            v = [0.0] * 7
            v[0], v[1 + _PAIR[t]] = 0.85**0.5, 0.15**0.5
            vectors.append(v)
        return vectors

    reading = ReadingProbe(packed).reading("m", "Where does Siyuan live now?")
    assert reading.gap == pytest.approx(0.15) and reading.trust == 1.0


def test_a_reading_kept_from_before_gaps_is_measured_again_without_a_second_notice(tmp_path):
    from assistant.clock import ManualClock
    from assistant.memory.script_probe import Reading, ReadingStore
    from data_schema.connect import Database

    db = Database(tmp_path / "hippo.db")
    kept = ReadingStore(lambda: db.conn, ManualClock())
    kept.keep("m", "han", Reading(0.0, None))  # what m012 leaves of an older answer
    told = []
    probe = ReadingProbe(_reads, kept, on_measured=lambda *args: told.append(args))
    assert probe.reading("m", "思远在哪？").gap is not None
    assert kept.reading("m", "han").gap is not None
    assert told == []  # the user was told about this model and script before
    db.close()
