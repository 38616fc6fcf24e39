"""Any chat GGUF can be served: its header read as it is, a base model refused unless a
chat template is given, one install recipe everywhere, and a crash reported, not suffered.

These need neither llama.cpp nor a real model: the GGUF files are made here, header only.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from tests.real_ollama.__main__ import main as serve
from tests.real_ollama.check import crash_test
from tests.real_ollama.gguf import GgufError, read_gguf
from tests.real_ollama.install import CMAKE_ARGS, wheel_folder
from tests.real_ollama.models import ModelRefused, chat_gguf

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "{% for m in messages %}<{{ m.role }}>{{ m.content }}\n{% endfor %}<assistant>"


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _pair(key: str, value: object) -> bytes:
    if isinstance(value, str):
        return _string(key) + struct.pack("<I", 8) + _string(value)
    if isinstance(value, list):  # an array of strings, as a vocabulary is
        items = b"".join(_string(v) for v in value)
        return _string(key) + struct.pack("<IIQ", 9, 8, len(value)) + items
    return _string(key) + struct.pack("<II", 4, value)  # uint32


def write_gguf(path: Path, metadata: dict[str, object], shapes: list[tuple[int, ...]]) -> Path:
    """A GGUF file's header: ``metadata``, then tensors of ``shapes`` (no weights)."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(shapes), len(metadata))
    out += b"".join(_pair(k, v) for k, v in metadata.items())
    for number, shape in enumerate(shapes):
        out += _string(f"blk.{number}.weight") + struct.pack(f"<I{len(shape)}Q", len(shape), *shape)
        out += struct.pack("<IQ", 2, 0)
    path.write_bytes(out)
    return path


def _gemma_base(tmp_path: Path, **more: object) -> Path:
    metadata = {
        "general.architecture": "gemma3",
        "general.basename": "gemma-3",
        "general.size_label": "270M",
        "tokenizer.ggml.tokens": ["<pad>", "<eos>", "hello"],
        "gemma3.context_length": 32768,
        "general.file_type": 15,
        **more,
    }
    return write_gguf(tmp_path / "gemma-3-270m.Q4_K_M.gguf", metadata, [(640, 262144), (640,)])


def test_a_ggufs_own_header_says_its_family_size_quantization_and_context(tmp_path):
    info = read_gguf(_gemma_base(tmp_path))
    assert (info.family, info.context_length, info.quantization) == ("gemma3", 32768, "Q4_K_M")
    assert (info.parameters, info.parameter_size) == (640 * 262144 + 640, "167.77M")
    assert info.chat_template == "" and "tokenizer.ggml.tokens" not in info.metadata


def test_a_file_that_is_not_gguf_is_refused_with_its_name(tmp_path):
    (tmp_path / "notes.gguf").write_text("not weights")
    with pytest.raises(GgufError, match=r"notes\.gguf is not a GGUF file"):
        read_gguf(tmp_path / "notes.gguf")
    with pytest.raises(ModelRefused, match=r"notes\.gguf is not a GGUF file"):
        chat_gguf(tmp_path / "notes.gguf")


def test_a_base_model_is_refused_for_want_of_a_chat_template_unless_one_is_given(tmp_path):
    base = _gemma_base(tmp_path)
    with pytest.raises(ModelRefused, match=r"has no chat template .* --chat-template FILE"):
        chat_gguf(base)
    (tmp_path / "chat.jinja").write_text(TEMPLATE)
    model = chat_gguf(base, chat_template=tmp_path / "chat.jinja")
    assert (model.name, model.template) == ("gemma-3:270m", TEMPLATE)
    assert chat_gguf(base, "mine:1", tmp_path / "chat.jinja").name == "mine:1"
    own = chat_gguf(_gemma_base(tmp_path, **{"tokenizer.chat_template": TEMPLATE}))
    assert own.template == TEMPLATE


def test_the_server_and_the_benches_refuse_a_base_model_in_one_line(tmp_path, capsys):
    from bench import locomo_qa, sleep_quality

    base = str(_gemma_base(tmp_path))
    assert serve(["--gguf", base]) == 1
    for bench in (sleep_quality, locomo_qa):
        assert bench.main(["--real", "--gguf", base]) == 1
    said = capsys.readouterr().err.splitlines()
    assert [line.split(":", 1)[0] for line in said] == ["real_ollama", "sleep_quality", "locomo_qa"]
    assert all("has no chat template" in line for line in said)


def test_every_install_instruction_builds_llama_cpp_with_the_same_flags():
    flags = " ".join(CMAKE_ARGS.split())
    for name in ("README.md", "pyproject.toml", ".ci/run"):
        # A line continued with a backslash, in a shell script or a comment, joined.
        text = re.sub(r"\\\n[#\s]*", "", (ROOT / name).read_text())
        found = re.findall(r'CMAKE_ARGS="([^"]*)"', text)
        assert [" ".join(f.split()) for f in found] == [flags], name
    assert "--no-cache-dir" in (ROOT / "README.md").read_text()


def test_the_wheel_is_kept_apart_for_each_set_of_flags(tmp_path):
    kept = wheel_folder(CMAKE_ARGS, tmp_path)
    assert kept == wheel_folder(CMAKE_ARGS.replace(" ", "  \n "), tmp_path)
    assert kept != wheel_folder(CMAKE_ARGS.replace("NATIVE=OFF", "NATIVE=ON"), tmp_path)
    assert kept.parent == tmp_path


def test_a_llama_cpp_that_crashes_is_reported_with_the_flags_that_fix_it(tmp_path, monkeypatch):
    # A stand-in llama_cpp that dies as a library built for another CPU does.
    (tmp_path / "llama_cpp").mkdir()
    (tmp_path / "llama_cpp" / "__init__.py").write_text(
        "import os, signal\n"
        "class Llama:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        os.kill(os.getpid(), signal.SIGILL)\n"
    )
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{ROOT}")
    said = crash_test(_gemma_base(tmp_path))
    assert said.startswith("llama.cpp crashed (SIGILL) generating its first tokens")
    assert CMAKE_ARGS in said and "--no-cache-dir" in said
    (tmp_path / "llama_cpp" / "__init__.py").write_text("class Llama:\n    pass\n")
    assert crash_test(_gemma_base(tmp_path)).startswith("llama.cpp failed to generate: ")
