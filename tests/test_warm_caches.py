"""The xdist controller writes the byte-code caches its workers read (tests/warm_caches.py)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import SimpleNamespace

from _pytest.assertion import rewrite

from tests.warm_caches import rewrite_test_module, wants_warm_caches, warm_caches


def _rewritten(path: Path) -> Path:
    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)


def _tree(root: Path) -> dict[str, Path]:
    files = {
        "test": root / "tests" / "test_sample.py",
        "conftest": root / "tests" / "conftest.py",
        "helper": root / "tests" / "helper.py",
        "engine": root / "assistant" / "thing.py",
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("def test_it():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return files


def test_test_modules_are_cached_rewritten_and_the_rest_compiled(pytestconfig, tmp_path):
    files = _tree(tmp_path)
    warm_caches(pytestconfig, tmp_path)
    # What pytest's import hook reads back instead of rewriting the module again:
    assert rewrite._read_pyc(files["test"], _rewritten(files["test"])) is not None
    assert rewrite._read_pyc(files["conftest"], _rewritten(files["conftest"])) is not None
    assert not _rewritten(files["helper"]).exists()  # not a test module: pytest leaves it
    for name in ("helper", "engine"):
        assert Path(importlib.util.cache_from_source(str(files[name]))).exists()
    assert not Path(importlib.util.cache_from_source(str(files["test"]))).exists()


def test_a_cached_module_is_not_rewritten_again(pytestconfig, tmp_path):
    path = _tree(tmp_path)["test"]
    assert rewrite_test_module(pytestconfig, path)
    os.utime(_rewritten(path), ns=(0, 0))  # a cache file written before would be replaced
    assert rewrite_test_module(pytestconfig, path)
    assert _rewritten(path).stat().st_mtime_ns == 0


def test_a_module_that_does_not_parse_is_left_to_the_worker(pytestconfig, tmp_path):
    path = tmp_path / "tests" / "test_broken.py"
    path.parent.mkdir()
    path.write_text("def test_it(:\n", encoding="utf-8")
    assert not rewrite_test_module(pytestconfig, path)
    assert not _rewritten(path).exists()


def test_only_a_controller_about_to_start_workers_warms(pytestconfig):
    def config(**option):
        return SimpleNamespace(option=SimpleNamespace(**option))

    assert wants_warm_caches(config(numprocesses=5, dist="worksteal"))
    assert not wants_warm_caches(config(numprocesses=0, dist="no"))
    assert not wants_warm_caches(config())  # xdist not loaded (-p no:xdist)
    worker = config(numprocesses=5, dist="worksteal")
    worker.workerinput = {"workerid": "gw0"}
    assert not wants_warm_caches(worker)


def test_a_pytest_without_the_helpers_is_left_to_rewrite_as_before(
    pytestconfig, tmp_path, monkeypatch
):
    path = _tree(tmp_path)["test"]
    monkeypatch.delattr(rewrite, "_rewrite_test")
    assert not rewrite_test_module(pytestconfig, path)
    assert not _rewritten(path).exists()
