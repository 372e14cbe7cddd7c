"""A run's query list as a table model over the columnar data (no widget per row)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from studio.experiments.query_list import QueryList

ALIGN_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
Index = QModelIndex | QPersistentModelIndex


class QueryTableModel(QAbstractTableModel):
    def __init__(self, queries: QueryList, parent=None) -> None:
        super().__init__(parent)
        self.queries = queries

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.queries)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.queries.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.queries.text(index.row(), index.column())
        if role == Qt.ItemDataRole.TextAlignmentRole and \
                self.queries.columns[index.column()].numeric:
            return int(ALIGN_RIGHT.value)
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
        self.beginResetModel()
        self.queries.sort(column, order == Qt.SortOrder.DescendingOrder)
        self.endResetModel()

    def set_filter(self, miss_at: int | None, category: str | None, contains: str) -> None:
        self.beginResetModel()
        self.queries.set_filter(miss_at, category, contains)
        self.endResetModel()
