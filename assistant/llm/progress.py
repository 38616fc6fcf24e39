"""Pull progress: bytes summed over a model's layers, and a smoothed download speed."""

from __future__ import annotations

import time
from collections.abc import Callable

from assistant.llm.values import PullProgress

__all__ = ["PullMeter"]


class PullMeter:
    """Sums pull progress over layers (by digest) and smooths the download speed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, smoothing: float = 0.3) -> None:
        self._clock = clock
        self._smoothing = smoothing
        self._layers: dict[str, tuple[int, int]] = {}
        self._last: tuple[float, int] | None = None
        self._speed = 0.0

    def update(
        self, status: str | None, digest: str | None, completed: int | None, total: int | None
    ) -> PullProgress:
        if digest:
            seen_completed, seen_total = self._layers.get(digest, (0, 0))
            self._layers[digest] = (completed or seen_completed, total or seen_total)
        done_bytes = sum(c for c, _ in self._layers.values())
        total_bytes = sum(t for _, t in self._layers.values())
        self._measure(done_bytes)
        return PullProgress(
            status=status or "",
            completed=done_bytes,
            total=total_bytes,
            bytes_per_s=self._speed,
            done=status == "success",
        )

    def _measure(self, done_bytes: int) -> None:
        now = self._clock()
        if self._last is not None:
            elapsed, gained = now - self._last[0], done_bytes - self._last[1]
            if elapsed > 0 and gained >= 0:
                rate = gained / elapsed
                self._speed = rate if not self._speed else (
                    self._smoothing * rate + (1 - self._smoothing) * self._speed
                )  # fmt: skip
        self._last = (now, done_bytes)
