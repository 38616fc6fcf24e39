"""A streaming reply's frames are spaced so that the app takes at most a share of a core."""

from __future__ import annotations

import threading
import time

import pytest

from ui.widgets.live_reply import FRAME_RATE, FramePacer


class _Cpu:
    """The app's CPU time, advanced by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _frames(pacer: FramePacer, cpu: _Cpu, cost: float, count: int) -> None:
    for _ in range(count):
        pacer.framed()
        cpu.now += cost  # what the app spends until the next frame starts


def test_cheap_frames_are_drawn_at_the_full_rate():
    cpu = _Cpu()
    pacer = FramePacer(share=0.2, cpu=cpu)
    _frames(pacer, cpu, cost=0.004, count=20)  # 4 ms an interval: 0.06 of a core at 15/s
    assert pacer.interval == pytest.approx(1 / FRAME_RATE)


def test_costly_frames_are_spaced_to_keep_the_app_within_its_share():
    cpu = _Cpu()
    pacer = FramePacer(share=0.2, cpu=cpu)
    _frames(pacer, cpu, cost=0.024, count=20)  # 24 ms an interval: 0.36 of a core at 15/s
    assert pacer.interval == pytest.approx(0.024 / 0.2, rel=0.01)  # 8 frames/s: 0.2


def test_however_costly_the_newest_words_wait_at_most_the_slowest_interval():
    cpu = _Cpu()
    pacer = FramePacer(share=0.2, cpu=cpu)
    _frames(pacer, cpu, cost=0.5, count=20)
    assert 1 / FRAME_RATE < pacer.interval <= 0.15


def test_one_slow_frame_does_not_set_the_pace():
    cpu = _Cpu()
    pacer = FramePacer(share=0.2, cpu=cpu)
    _frames(pacer, cpu, cost=0.004, count=10)
    _frames(pacer, cpu, cost=0.020, count=1)  # a chunk rendered as Markdown, say
    _frames(pacer, cpu, cost=0.004, count=1)
    after_spike = pacer.interval
    assert after_spike < 0.020 / 0.2  # not the whole way to the slow frame's pace
    _frames(pacer, cpu, cost=0.004, count=10)
    assert pacer.interval == pytest.approx(1 / FRAME_RATE)


def test_by_default_every_thread_of_the_app_counts():
    done = threading.Event()

    def busy() -> None:  # another thread's work: reading and storing the reply, say
        while not done.is_set():
            sum(range(1000))

    pacer = FramePacer(share=0.2)
    pacer.framed()
    worker = threading.Thread(target=busy)
    worker.start()
    try:
        before = time.process_time()
        while time.process_time() - before < 0.05:  # this thread only waits
            done.wait(0.005)
    finally:
        done.set()
        worker.join()
    pacer.framed()
    assert pacer.interval > 1 / FRAME_RATE, "the other thread's CPU time slowed the frames"
