"""A DataTable of stored records: one row per id, every cell plain text (never markup)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

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
        flex: the label of the column that takes the width the others leave (its width
            in ``columns`` is its least); None keeps every width as given.
        id: the widget's id.
    """

    def __init__(
        self,
        columns: Sequence[tuple[str, int | None]],
        *,
        flex: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._columns = columns
        self._flex = flex

    def on_mount(self) -> None:
        for label, width in self._columns:
            self.add_column(label, width=width, key=label)
        self._fit_flex()

    def on_resize(self) -> None:
        self._fit_flex()

    def _fit_flex(self) -> None:
        """Give the flex column the width the other columns leave (a long text is shown
        whole, up to the screen's width, rather than cut at a fixed width)."""
        if self._flex is None or self._flex not in self.columns or not self.size.width:
            return
        least = dict(self._columns)[self._flex] or 1
        others = sum(
            column.get_render_width(self)
            for key, column in self.columns.items()
            if key.value != self._flex
        )
        scrollbar = self.styles.scrollbar_size_vertical
        left = self.size.width - others - scrollbar - 2 * self.cell_padding
        column = self.columns[ColumnKey(self._flex)]
        width = max(least, left)
        if column.width != width:
            column.width = width
            self._require_update_dimensions = True
            self.refresh()

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
