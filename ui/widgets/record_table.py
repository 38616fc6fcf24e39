"""A DataTable of stored records: one row per id, every cell plain text (never markup)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import DataTable

from assistant.terminal import visible

__all__ = ["Cell", "RecordTable"]

Cell = str | Text
"""A cell: a string is shown as it is (a "[" in a fact is just a bracket, a control character
is shown escaped), or styled Text (built from `ui.format.clip`, which escapes)."""


def _text(cell: Cell) -> Text:
    if isinstance(cell, Text):
        return cell
    return Text(visible(cell), no_wrap=True, overflow="ellipsis")


class RecordTable(DataTable[Text]):
    """Rows keyed by record id, with the row cursor kept on the same record across reloads.

    Args:
        columns: (label, width) for each column; width None fits the content.
        id: the widget's id.
    """

    def __init__(self, columns: Sequence[tuple[str, int | None]], *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._columns = columns

    def on_mount(self) -> None:
        for label, width in self._columns:
            self.add_column(label, width=width, key=label)

    def show(self, rows: Iterable[tuple[int, Sequence[Cell]]]) -> None:
        """Replace the rows with these (id, cells) pairs, keeping the cursor's record if shown."""
        keep = self.selected_id
        row_index = self.cursor_row
        self.clear()
        for record_id, cells in rows:
            self.add_row(*(_text(cell) for cell in cells), key=str(record_id))
        if not self.row_count:
            return
        if keep is not None and str(keep) in self.rows:
            self.move_cursor(row=self.get_row_index(str(keep)))
        else:
            self.move_cursor(row=min(row_index, self.row_count - 1))

    @property
    def selected_id(self) -> int | None:
        """The id of the record under the cursor (None when the table is empty)."""
        if not self.row_count:
            return None
        key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return int(key.value) if key.value is not None else None

    def selected_ids(self) -> list[int]:
        """Every id shown, top to bottom."""
        return [int(key.value) for key in self.rows if key.value is not None]
