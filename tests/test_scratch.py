"""The tests' temporary folders go to memory only where it is safe (tests/scratch.py)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from tests import scratch


def _config(basetemp: str | None = None, policy: str = "failed") -> SimpleNamespace:
    return SimpleNamespace(option=SimpleNamespace(basetemp=basetemp), getini=lambda name: policy)


@pytest.fixture
def roomy_memory(monkeypatch):
    """A machine whose /dev/shm is a tmpfs with room, whatever this machine has."""
    monkeypatch.delenv("PYTEST_DEBUG_TEMPROOT", raising=False)
    if scratch.temp_root_in_memory(_config()) is None:
        pytest.skip("no tmpfs with room at /dev/shm here")


def test_memory_is_used_where_it_is_a_tmpfs_with_room(roomy_memory):
    assert scratch.temp_root_in_memory(_config()) == scratch.MEMORY


def test_the_person_running_the_tests_decides_first(roomy_memory, monkeypatch):
    assert scratch.temp_root_in_memory(_config(basetemp="/somewhere")) is None
    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", "/elsewhere")
    assert scratch.temp_root_in_memory(_config()) is None


def test_runs_that_keep_every_folder_stay_on_disk(roomy_memory):
    assert scratch.temp_root_in_memory(_config(policy="all")) is None


def test_a_small_memory_file_system_is_left_alone(roomy_memory, monkeypatch):
    monkeypatch.setattr(scratch, "_ROOM", 1 << 60)
    assert scratch.temp_root_in_memory(_config()) is None


def test_a_folder_that_is_not_a_tmpfs_is_left_alone(roomy_memory, monkeypatch, tmp_path):
    monkeypatch.setattr(scratch, "MEMORY", tmp_path)
    assert scratch.temp_root_in_memory(_config()) is None


def test_this_run_put_its_folders_where_the_rule_says(tmp_path, pytestconfig):
    if os.environ.get("PYTEST_DEBUG_TEMPROOT") == str(scratch.MEMORY):
        assert tmp_path.is_relative_to(scratch.MEMORY)
    elif pytestconfig.option.basetemp is None and "PYTEST_DEBUG_TEMPROOT" not in os.environ:
        assert scratch.temp_root_in_memory(pytestconfig) is None
