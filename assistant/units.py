"""Sizes as people read them, the same in the shell and in the app."""

from __future__ import annotations

__all__ = ["human_size"]

_UNITS = ("B", "KB", "MB", "GB", "TB")


def human_size(size: float) -> str:
    """A byte count in decimal units, as Ollama's own listing shows sizes.

    Args:
        size: a number of bytes.

    Returns:
        e.g. ``"46.0 MB"``, ``"1.4 GB"`` or ``"512 B"``: the largest unit under which the
        number stays below 1000.
    """
    value = float(size)
    for unit in _UNITS:
        if abs(value) < 1000 or unit == _UNITS[-1]:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")  # pragma: no cover
