"""Review one attribute across many images: a thumbnail grid, most confident first.

This is the fastest way to clean a label at scale: pick "floral", glance over the grid,
select the few that are wrong and press R, then Ctrl+A and A for the rest. Keys: A accept
and R reject the selected images, U undo, Ctrl+A select all; click, Shift+click and
Ctrl+click select as usual. Every key press is one audited change.

Pictures come from the shared ``ThumbnailCache``: an item shows a placeholder until its
file is decoded off the UI thread, and only items actually drawn ask for theirs, so a
grid of thousands costs no more than the screenful in view.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from studio.attributes.labels import review_many
from studio.attributes.query import images_with_attribute
from studio.attributes.vocabulary import load_vocabulary
from studio.errors import StudioError
from studio.store.attribute_counts import images_per_attribute
from studio.wording import count
from studio.workspace import Workspace
from widgets import actions
from widgets.attribute_chips import STATUS_MARK
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.thumbnail_cache import ThumbnailCache

THUMB = 128
STATUS_FILTERS = {
    "Undecided": ("suggested",),
    "All": None,
    "Accepted": ("accepted",),
    "Rejected": ("rejected",),
}
STATUS_BACKGROUND = {"suggested": "#ffffff", "accepted": "#d1fae5", "rejected": "#fee2e2"}
ID_ROLE = Qt.ItemDataRole.UserRole
STATUS_ROLE = Qt.ItemDataRole.UserRole + 1
CONFIDENCE_ROLE = Qt.ItemDataRole.UserRole + 2
PICTURE_ROLE = Qt.ItemDataRole.UserRole + 3  # True once the item shows its own picture


class _DrawnWithoutPicture(QStyledItemDelegate):
    """Draws items as usual and reports the rows drawn with a placeholder icon."""

    def __init__(self, report: Callable[[int], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        if not index.data(PICTURE_ROLE):
            self.report(index.row())
        super().paint(painter, option, index)


class ThumbnailGrid(QListWidget):
    """The grid; A/R/U act on the selection instead of starting a keyboard search.

    ``drawn_without_picture(row)`` fires while an item is drawn with its placeholder: the
    owner asks for the picture then, so only items on screen are decoded.
    """

    decided = Signal(str)  # status
    drawn_without_picture = Signal(int)  # row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(_DrawnWithoutPicture(self.drawn_without_picture.emit, self))
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setIconSize(QSize(THUMB, THUMB))
        self.setGridSize(QSize(THUMB + 16, THUMB + 36))
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self._keys = actions.KeyMap({
            "attributes.bulk.accept": lambda: self.decided.emit("accepted"),
            "attributes.bulk.reject": lambda: self.decided.emit("rejected"),
            "attributes.bulk.undo": lambda: self.decided.emit("suggested"),
        })

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """The keys of ``attributes.bulk`` in the key map (widgets/actions.py)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)


class BulkReview(QWidget):
    labels_changed = Signal(str)  # attribute

    def __init__(
        self, workspace: Workspace, thumbnails: ThumbnailCache, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.thumbnails = thumbnails
        self.attribute = QComboBox()
        self.attribute.setEditable(True)
        self.attribute.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.attribute.setMinimumContentsLength(18)
        self.attribute.activated.connect(lambda _=0: self.load())
        self.status_filter = QComboBox()
        self.status_filter.addItems(list(STATUS_FILTERS))
        self.status_filter.currentIndexChanged.connect(lambda _=0: self.load())
        self.count = ElidedLabel()
        self.message = WrappedLabel()
        self.message.setStyleSheet("color: #b91c1c;")
        hint = QLabel("A accept · R reject · U undo the selected · Ctrl+A select all")
        hint.setStyleSheet("color: #6b7280;")
        self.grid = ThumbnailGrid()
        self.empty = WrappedLabel()
        self.empty.setObjectName("emptyStateDetail")
        self.empty.setWordWrap(True)
        self.empty.hide()
        self.grid.decided.connect(self.decide_selected)
        self._drawn: set[int] = set()  # rows drawn with a placeholder, not yet asked for
        self._files: dict[int, tuple[str, bool] | None] = {}  # row -> (file, missing)
        self._waiting: dict[str, set[int]] = {}  # file -> rows waiting for its picture
        # Pictures are asked for just after a paint, never inside one.
        self._ask_timer = QTimer(self, singleShot=True, interval=0)
        self._ask_timer.timeout.connect(self._ask_for_pictures)
        self.grid.drawn_without_picture.connect(self._on_drawn)
        thumbnails.ready.connect(self._on_picture)

        top = QHBoxLayout()
        top.addWidget(QLabel("Attribute"))
        top.addWidget(self.attribute)
        top.addWidget(QLabel("Show"))
        top.addWidget(self.status_filter)
        top.addWidget(self.count, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.empty)
        layout.addWidget(self.grid, 1)
        layout.addWidget(self.message)
        layout.addWidget(hint)

    def refresh_vocabulary(self) -> None:
        project = self.workspace.project
        current = self.attribute.currentText()
        names = [e.name for e in load_vocabulary(project)] if project else []
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.addItems(names)
        completer = QCompleter(names, self.attribute)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.attribute.setCompleter(completer)
        if current in names:
            self.attribute.setCurrentText(current)
        elif project is not None:
            self.attribute.setCurrentText(self._starting_attribute(project, names))
        self.attribute.blockSignals(False)

    def _starting_attribute(self, project, names: list[str]) -> str:
        """The first attribute with images to decide (else with any images), not one with 0."""
        counts = images_per_attribute(project)
        statuses = STATUS_FILTERS[self.status_filter.currentText()]
        for wanted in (statuses, None):
            for name in names:
                have = counts.get(name, {})
                if any(n for status, n in have.items() if wanted is None or status in wanted):
                    return name
        return names[0] if names else ""

    def show_attribute(self, name: str, status_filter: str = "Undecided") -> None:
        self.attribute.setCurrentText(name)
        self.status_filter.blockSignals(True)
        self.status_filter.setCurrentText(status_filter)
        self.status_filter.blockSignals(False)
        self.load()

    def load(self) -> None:
        """Fill the grid with the chosen attribute's images, most confident first."""
        project, name = self.workspace.project, self.attribute.currentText().strip()
        self.grid.clear()
        self._drawn.clear()
        self._files.clear()
        self._waiting.clear()
        self.message.clear()
        self.empty.hide()
        if project is None or not name:
            self.count.setText("")
            return
        statuses = STATUS_FILTERS[self.status_filter.currentText()]
        rows = images_with_attribute(project, name, statuses=statuses)
        loading = QIcon(self.thumbnails.placeholder(THUMB, "loading"))
        for image_id, confidence, status in rows:
            item = QListWidgetItem(loading, "")
            item.setData(ID_ROLE, image_id)
            item.setData(CONFIDENCE_ROLE, confidence)
            item.setSizeHint(QSize(THUMB + 12, THUMB + 32))
            self._set_status(item, status)
            self.grid.addItem(item)
        self.count.setText(count(len(rows), "image"))
        if not rows:
            shown = self.status_filter.currentText().lower()
            self.empty.setText(
                f"No images with “{name}” ({shown}). Its labels come from the product text, "
                "a model or a person: try “All”, run “Extract from text” or “Suggest with "
                "model”, or add it to an image in the One image tab (N)."
            )
            self.empty.show()

    def _set_status(self, item: QListWidgetItem, status: str) -> None:
        confidence = item.data(CONFIDENCE_ROLE)
        sure = "" if confidence is None else f" {confidence:.2f}"
        item.setData(STATUS_ROLE, status)
        item.setText(f"{STATUS_MARK[status]}{sure}")
        item.setBackground(QBrush(QColor(STATUS_BACKGROUND[status])))
        item.setToolTip(f"{item.data(ID_ROLE)} — {status}")

    def _on_drawn(self, row: int) -> None:
        self._drawn.add(row)
        self._ask_timer.start()

    def _ask_for_pictures(self) -> None:
        """Ask the cache for the pictures of the items just drawn with a placeholder.

        Asking again for a picture already queued costs nothing, and re-queues one the
        cache dropped while the user scrolled, so every item in view ends up decoded.
        """
        rows, self._drawn = self._drawn, set()
        for row in sorted(rows, reverse=True):  # the cache decodes the last asked first
            item = self.grid.item(row)
            if item is None or item.data(PICTURE_ROLE):
                continue
            file = self._file(row, item)
            if file is None:
                self._show_picture(item, self.thumbnails.placeholder(THUMB, "missing"))
                continue
            path, missing = file
            pixmap = self.thumbnails.get(path, THUMB, missing=missing)
            if missing or self.thumbnails.cached(path, THUMB) is not None:
                self._show_picture(item, pixmap)
            else:
                self._waiting.setdefault(path, set()).add(row)

    def _file(self, row: int, item: QListWidgetItem) -> tuple[str, bool] | None:
        """The item's image file and whether it is missing (read once per load)."""
        if row not in self._files:
            project = self.workspace.project
            image = project.image(item.data(ID_ROLE)) if project else None
            path = project.image_file(image) if image is not None else None
            self._files[row] = None if path is None else (str(path), image.missing)
        return self._files[row]

    def _on_picture(self, path: str, size: int) -> None:
        rows = self._waiting.pop(path, None) if size == THUMB else None
        pixmap = self.thumbnails.cached(path, size) if rows else None
        if pixmap is None:
            return
        for row in rows:
            item = self.grid.item(row)
            if item is not None:
                self._show_picture(item, pixmap)
        if self._waiting:
            self.grid.viewport().update()  # items in view whose request was dropped ask again

    @staticmethod
    def _show_picture(item: QListWidgetItem, pixmap: QPixmap) -> None:
        item.setIcon(QIcon(pixmap))
        item.setData(PICTURE_ROLE, True)

    def selected_ids(self) -> list[str]:
        return [item.data(ID_ROLE) for item in self.grid.selectedItems()]

    def decide_selected(self, status: str) -> None:
        project, name = self.workspace.project, self.attribute.currentText().strip()
        items = self.grid.selectedItems()
        if project is None or not items:
            return
        try:
            review_many(project, self.workspace.user_name, name,
                        [item.data(ID_ROLE) for item in items], status)
        except StudioError as error:
            self.message.setText(str(error))
            return
        for item in items:
            self._set_status(item, status)
        self.message.setText("")
        self.count.setText(f"{len(items):,} marked {status} · {count(self.grid.count(), 'image')}")
        self.labels_changed.emit(name)
