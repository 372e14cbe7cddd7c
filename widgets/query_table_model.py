"""A run's query list as a table model over the columnar data (no widget per row)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from studio.experiments.query_list import QueryList

ALIGN_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
Index = QModelIndex | QPersistentModelIndex
ALIGN_RIGHT_VALUE = int(ALIGN_RIGHT.value)
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)  # plain ints: the roles come as ints
ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole.value)


class QueryTableModel(QAbstractTableModel):
    def __init__(self, queries: QueryList, parent=None) -> None:
        super().__init__(parent)
        self.queries = queries

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.queries)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.queries.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        # Called for every role of every cell on screen at each paint: the roles this
        # model does not answer return at once.
        if role == DISPLAY:
            return self.queries.text(index.row(), index.column()) if index.isValid() else None
        if role == ALIGNMENT and index.isValid() and \
                self.queries.columns[index.column()].numeric:
            return ALIGN_RIGHT_VALUE
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        column = self.queries.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tip
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """A new row order, not a reset: the selected query stays selected where it moves
        (its persistent indexes follow it), and the view keeps its columns."""
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        before = [int(self.queries.rows[index.row()]) for index in persistent]
        self.queries.sort(column, order == Qt.SortOrder.DescendingOrder)
        if persistent:
            rows = self.queries.rows
            where = dict.fromkeys(before, -1)
            found = np.flatnonzero(np.isin(rows, before))
            where.update((int(rows[n]), int(n)) for n in found)
            moved = [self.index(where[query], index.column()) if where[query] >= 0
                     else QModelIndex() for query, index in zip(before, persistent, strict=True)]
            self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()

    def set_filter(self, miss_at: int | None, category: str | None, contains: str) -> None:
        self.beginResetModel()
        self.queries.set_filter(miss_at, category, contains)
        self.endResetModel()
