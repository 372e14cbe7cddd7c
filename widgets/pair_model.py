"""The Pairs table: ids of every matching pair, full rows fetched a page at a time.

Filtering runs one query for the matching ids (an integer list; 100,000 of them cost a
few hundred kilobytes). Rows are fetched from SQLite in pages of ``PAGE_SIZE`` only when
the view asks for one of their cells, and a few recent pages are kept, so scrolling
through 100,000 pairs touches only the pages that come into view.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from studio.captions.records import CaptionPolicy
from studio.pairs.query import PairFilter, PairRow, pair_ids, pair_rows, pair_thumbnails
from studio.store import Project
from widgets.thumbnail_cache import ThumbnailCache

PAGE_SIZE = 100
KEPT_PAGES = 12
THUMB = 44
COLUMNS = (
    "Pair",
    "Reference",
    "Target",
    "Category",
    "Split",
    "Captions",
    "Status",
    "Method",
    "Authors",
)
Index = QModelIndex | QPersistentModelIndex


class PairTableModel(QAbstractTableModel):
    def __init__(self, thumbnails: ThumbnailCache | None = None, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.policy = CaptionPolicy()
        self.filter = PairFilter()
        self.ids: list[int] = []
        self._pages: OrderedDict[int, dict[int, PairRow]] = OrderedDict()
        self._paths: dict[int, tuple[tuple[str, bool] | None, tuple[str, bool] | None]] = {}
        self._waiting: dict[str, set[int]] = {}
        self.thumbnails = thumbnails
        if thumbnails is not None:
            thumbnails.ready.connect(self._on_thumbnail)
        self.page_fetches = 0  # pages read from SQLite (tests assert on it)
        self.rows_fetched = 0

    # -- loading -----------------------------------------------------------------------

    def load(
        self,
        project: Project | None,
        where: PairFilter | None = None,
        policy: CaptionPolicy | None = None,
    ) -> None:
        """Run the filter and reset the view; rows are fetched later, when shown."""
        self.beginResetModel()
        self.project = project
        self.filter = where or PairFilter()
        self.policy = policy or self.policy
        self.ids = pair_ids(project, self.filter, self.policy) if project else []
        self._pages.clear()
        self._paths.clear()
        self._waiting.clear()
        self.endResetModel()

    def refresh(self) -> None:
        self.load(self.project, self.filter, self.policy)

    def row_at(self, row: int) -> PairRow | None:
        if not 0 <= row < len(self.ids) or self.project is None:
            return None
        page = row // PAGE_SIZE
        rows = self._pages.get(page)
        if rows is None:
            rows = self._fetch(page)
        else:
            self._pages.move_to_end(page)
        return rows.get(self.ids[row])

    def _fetch(self, page: int) -> dict[int, PairRow]:
        ids = self.ids[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
        rows = pair_rows(self.project, ids)
        self._paths.update(pair_thumbnails(self.project, ids))
        self.page_fetches += 1
        self.rows_fetched += len(ids)
        self._pages[page] = rows
        while len(self._pages) > KEPT_PAGES:
            _, dropped = self._pages.popitem(last=False)
            for pair_id in dropped:
                self._paths.pop(pair_id, None)
        return rows

    def row_of(self, pair_id: int) -> int:
        """Row of a pair in the current list, or -1 (ids are sorted: binary search)."""
        from bisect import bisect_left

        position = bisect_left(self.ids, pair_id)
        return position if position < len(self.ids) and self.ids[position] == pair_id else -1

    # -- Qt model interface ------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.ids)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self.ids):
            return str(self.ids[section])  # the row header: the pair number, never scrolled away
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.DecorationRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        pair = self.row_at(index.row())
        if pair is None:
            return None
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DecorationRole:
            return self._thumbnail(pair, column, index.row())
        if role == Qt.ItemDataRole.ToolTipRole:
            if column in ("Reference", "Target"):
                return pair.reference_title if column == "Reference" else pair.target_title
            return None
        return self._text(pair, column)

    def _text(self, pair: PairRow, column: str) -> str:
        if column == "Pair":
            return str(pair.id)
        if column == "Reference":
            return _label(pair.reference_id, pair.reference_title)
        if column == "Target":
            return _label(pair.target_id or "(hidden)", pair.target_title)
        if column == "Captions":
            return f"{pair.live}/{self.policy.per_pair}"
        if column == "Status":
            return pair.status(self.policy)
        if column == "Method":
            return pair.method if pair.score is None else f"{pair.method} {pair.score:.2f}"
        if column == "Authors":
            return pair.authors.replace(",", ", ")
        return getattr(pair, column.lower())

    def _thumbnail(self, pair: PairRow, column: str, row: int):
        if self.thumbnails is None or column not in ("Reference", "Target"):
            return None
        paths = self._paths.get(pair.id)
        image = None if paths is None else paths[0 if column == "Reference" else 1]
        if image is None:
            return self.thumbnails.placeholder(THUMB)
        path, missing = image
        pixmap = self.thumbnails.get(path, THUMB, missing=missing)
        if not missing and self.thumbnails.cached(path, THUMB) is None:
            self._waiting.setdefault(path, set()).add(row)
        return pixmap

    def _on_thumbnail(self, path: str, size: int) -> None:
        for row in self._waiting.pop(path, ()):
            if row < len(self.ids):
                self.dataChanged.emit(
                    self.index(row, 1), self.index(row, 2), [Qt.ItemDataRole.DecorationRole]
                )


def _label(image_id: str, title: str) -> str:
    return f"{image_id}\n{title}" if title else image_id
