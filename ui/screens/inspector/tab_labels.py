"""The inspector's tab labels, shortened to fit the screen's width (all ten at 80 columns).

Textual's tab bar scrolls to the tab on show, so on a narrow screen the last tabs were
simply off its edge (at 80 columns, 9 Sleep and 0 Settings). The labels of the tabs not
on show are cut to their first letters instead, as far as it takes; the number key of
each stays, and the tab on show keeps its whole title.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["tab_labels"]

_GUTTER = 2  # a tab's padding: one cell either side
_SHORTEST = 3  # letters of a cut title ("Sle"), the least the labels are cut to


def tab_labels(titles: Sequence[tuple[str, str]], active: str, width: int) -> dict[str, str]:
    """Each tab's label ("9 Sleep"), cut where the whole bar would not fit ``width``.

    Args:
        titles: (tab id, title), in the tabs' order (their number keys 1-9, then 0).
        active: the id of the tab on show, whose title is never cut.
        width: the cells the tab bar has.

    Returns:
        The label for each tab id: its number key, a space, its (perhaps cut) title.
    """
    longest = max(len(title) for _, title in titles)
    for letters in range(longest, _SHORTEST - 1, -1):
        labels = {
            tab_id: f"{number % 10} "
            + (title if tab_id == active else title[:letters].rstrip(" &"))
            for number, (tab_id, title) in enumerate(titles, start=1)
        }
        if sum(len(label) + _GUTTER for label in labels.values()) <= width:
            break
    return labels
