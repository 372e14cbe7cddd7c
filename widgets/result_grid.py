"""Ranked results as a grid of thumbnails; choosing one makes it the next reference."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QWidget

from widgets.thumbnail_cache import ThumbnailCache

THUMB = 120
ID_ROLE = Qt.ItemDataRole.UserRole


class ResultGrid(QListWidget):
    """Shows (image id, score) hits; Enter or double-click chooses the current one."""

    chosen = Signal(str)

    def __init__(
        self,
        thumbnails: ThumbnailCache,
        path_of: Callable[[str], Path | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.path_of = path_of
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setIconSize(QSize(THUMB, THUMB))
        self.setGridSize(QSize(THUMB + 24, THUMB + 44))
        self.setUniformItemSizes(True)
        self.setWordWrap(True)
        self.setToolTip("Double-click or press Enter to use a result as the next reference "
                        "(Alt+1 … Alt+9 pick the first nine)")
        self.itemActivated.connect(lambda item: self.chosen.emit(item.data(ID_ROLE)))
        thumbnails.ready.connect(self._refresh_icon)
        self._paths: dict[str, str] = {}

    def show_hits(
        self,
        hits: Sequence[tuple[str, float]],
        target_id: str | None = None,
        correct: Collection[str] = (),
    ) -> None:
        """``target_id`` is marked ★; other ``correct`` images (a query with several ground
        truths, as in CIRCO) are marked ✓ in a lighter green."""
        self.clear()
        self._paths.clear()
        for rank, (image_id, score) in enumerate(hits, start=1):
            item = QListWidgetItem(f"{rank}. {image_id}\n{score:.3f}")
            item.setData(ID_ROLE, image_id)
            item.setToolTip(f"{image_id} — similarity {score:.3f}")
            path = self.path_of(image_id)
            if path is not None:
                self._paths[str(path)] = image_id
            item.setIcon(QIcon(self.thumbnails.get(path, THUMB)))
            if image_id == target_id:
                item.setBackground(QBrush(QColor("#d9f7dd")))
                item.setText(f"{rank}. {image_id} ★ target\n{score:.3f}")
            elif image_id in correct:
                item.setBackground(QBrush(QColor("#eefaf0")))
                item.setText(f"{rank}. {image_id} ✓ correct\n{score:.3f}")
                item.setToolTip(f"{image_id} — a ground truth of this query; similarity "
                                f"{score:.3f}")
            self.addItem(item)

    def hit_id(self, row: int) -> str | None:
        item = self.item(row)
        return None if item is None else item.data(ID_ROLE)

    def _refresh_icon(self, path: str, size: int) -> None:
        image_id = self._paths.get(path)
        if image_id is None or size != THUMB:
            return
        pixmap = self.thumbnails.cached(path, size)
        for row in range(self.count()):
            item = self.item(row)
            if item.data(ID_ROLE) == image_id and pixmap is not None:
                item.setIcon(QIcon(pixmap))
