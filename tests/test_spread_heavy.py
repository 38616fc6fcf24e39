"""The heavy tests start first, dealt over the xdist workers' shares (tests/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import spread_heavy


@dataclass(frozen=True)
class _Item:
    name: str

    def get_closest_marker(self, name: str) -> object | None:
        return name if name == "heavy" and self.name.startswith("heavy") else None


def _shares(items: list, workers: int) -> list[list[str]]:
    """The contiguous shares worksteal hands out, as names."""
    shares, left, start = [], len(items), 0
    for share in range(workers):
        size = left // (workers - share)
        shares.append([i.name for i in items[start : start + size]])
        left, start = left - size, start + size
    return shares


def test_each_share_starts_with_its_part_of_the_heavy_tests():
    items = [_Item(f"light{n}") for n in range(30)]
    items[3:3] = [_Item(f"heavy{n}") for n in range(10)]  # together, as a module's tests
    ordered = spread_heavy(items, 4)
    assert sorted(i.name for i in ordered) == sorted(i.name for i in items)  # none lost
    shares = _shares(ordered, 4)
    assert [sum(n.startswith("heavy") for n in s) for s in shares] == [3, 3, 2, 2]
    for share in shares:
        heavy = [n for n in share if n.startswith("heavy")]
        assert share[: len(heavy)] == heavy
    light = [i.name for i in ordered if i.name.startswith("light")]
    assert light == [f"light{n}" for n in range(30)]  # in their own order


def test_more_heavy_tests_than_a_share_holds_are_all_kept():
    items = [_Item("light0"), *(_Item(f"heavy{n}") for n in range(5)), _Item("light1")]
    ordered = spread_heavy(items, 4)
    assert sorted(i.name for i in ordered) == sorted(i.name for i in items)
    assert [i.name for i in ordered[:2]] == ["heavy0", "heavy4"]
