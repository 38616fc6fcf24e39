"""Byte-code caches written once, by the xdist controller, before its workers start.

On a fresh checkout there is no byte-code yet. Each of the five workers would start
together, find none, and each would compile the whole tree and re-write every test
module's asserts for itself: the same ~3 s of CPU, five times over, on two cores. The
controller writes them first (~3 s of CPU when nothing is cached, ~0.1 s when all is),
and every worker then reads them. Nothing here changes what a test runs: the workers
would write the very same files.

Test modules are cached as pytest caches them, through its assertion-rewriting
helpers. They are internal to pytest, so where a pytest release moves them this does
nothing and each worker rewrites as before; tests/test_warm_caches.py notices that.
"""

from __future__ import annotations

import compileall
import fnmatch
import re
from pathlib import Path

import pytest

# The packages the tests import, and the tests' own helpers (test modules are rewritten).
PACKAGES = ("assistant", "data_schema", "scheduler", "ui", "tests")
_TEST_MODULE = re.compile(r"[/\\](test_[^/\\]*|[^/\\]*_test|conftest)\.py$")


def wants_warm_caches(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller about to start workers."""
    if hasattr(config, "workerinput"):
        return False
    workers = getattr(config.option, "numprocesses", None)
    return bool(workers) and getattr(config.option, "dist", "no") != "no"


def warm_caches(config: pytest.Config, root: Path) -> None:
    """Write the byte-code of ``root``'s packages and the rewritten test modules."""
    for package in PACKAGES:
        folder = root / package
        if folder.is_dir():
            compileall.compile_dir(folder, quiet=2, rx=_TEST_MODULE, workers=1)
    if config.getoption("assertmode") == "rewrite":
        patterns = config.getini("python_files")
        for path in sorted((root / "tests").rglob("*.py")):
            if path.name == "conftest.py" or any(fnmatch.fnmatch(path.name, p) for p in patterns):
                rewrite_test_module(config, path)


def rewrite_test_module(config: pytest.Config, path: Path) -> bool:
    """Cache ``path`` rewritten as pytest's import hook would; whether it is cached now."""
    try:
        from _pytest.assertion import rewrite
        from _pytest.assertion.rewrite import assertstate_key

        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            return True
        state = config.stash[assertstate_key]
        pyc.parent.mkdir(exist_ok=True)
        source_stat, code = rewrite._rewrite_test(path, config)
        return rewrite._write_pyc(state, code, source_stat, pyc)
    except (ImportError, AttributeError, KeyError, TypeError, OSError, SyntaxError):
        return False  # the worker that imports it rewrites it, and reports a syntax error
