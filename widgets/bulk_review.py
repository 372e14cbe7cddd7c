"""Review one attribute across many images: a thumbnail grid, most confident first.

This is the fastest way to clean a label at scale: pick "floral", glance over the grid,
select the few that are wrong and press R, then Ctrl+A and A for the rest. Keys: A accept
and R reject the selected images, U undo, Ctrl+A select all; click, Shift+click and
Ctrl+click select as usual. Every key press is one audited change.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.attributes.labels import review_many
from studio.attributes.query import images_with_attribute
from studio.attributes.vocabulary import load_vocabulary
from studio.errors import StudioError
from studio.workspace import Workspace
from widgets.attribute_chips import STATUS_MARK
from widgets.thumbnails import load_pixmap

THUMB = 128
ICONS_PER_TICK = 40
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


class ThumbnailGrid(QListWidget):
    """The grid; A/R/U act on the selection instead of starting a keyboard search."""

    decided = Signal(str)  # status

    KEYS = {Qt.Key.Key_A: "accepted", Qt.Key.Key_R: "rejected", Qt.Key.Key_U: "suggested"}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setIconSize(QSize(THUMB, THUMB))
        self.setGridSize(QSize(THUMB + 16, THUMB + 36))
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        status = self.KEYS.get(event.key())
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if status is not None and plain:
            self.decided.emit(status)
            event.accept()
            return
        super().keyPressEvent(event)


class BulkReview(QWidget):
    labels_changed = Signal(str)  # attribute

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.attribute = QComboBox()
        self.attribute.setEditable(True)
        self.attribute.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.attribute.setMinimumContentsLength(18)
        self.attribute.activated.connect(lambda _=0: self.load())
        self.status_filter = QComboBox()
        self.status_filter.addItems(list(STATUS_FILTERS))
        self.status_filter.currentIndexChanged.connect(lambda _=0: self.load())
        self.count = QLabel()
        self.message = QLabel()
        self.message.setStyleSheet("color: #b91c1c;")
        hint = QLabel("A accept · R reject · U undo the selected · Ctrl+A select all")
        hint.setStyleSheet("color: #6b7280;")
        self.grid = ThumbnailGrid()
        self.grid.decided.connect(self.decide_selected)
        self._pending: list[QListWidgetItem] = []
        self._icon_timer = QTimer(self)
        self._icon_timer.setInterval(0)
        self._icon_timer.timeout.connect(self._load_some_icons)

        top = QHBoxLayout()
        top.addWidget(QLabel("Attribute"))
        top.addWidget(self.attribute)
        top.addWidget(QLabel("Show"))
        top.addWidget(self.status_filter)
        top.addWidget(self.count, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
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
        self.attribute.blockSignals(False)

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
        self._pending = []
        self.message.clear()
        if project is None or not name:
            self.count.setText("")
            return
        statuses = STATUS_FILTERS[self.status_filter.currentText()]
        rows = images_with_attribute(project, name, statuses=statuses)
        for image_id, confidence, status in rows:
            item = QListWidgetItem()
            item.setData(ID_ROLE, image_id)
            item.setData(CONFIDENCE_ROLE, confidence)
            item.setSizeHint(QSize(THUMB + 12, THUMB + 32))
            self._set_status(item, status)
            self.grid.addItem(item)
            self._pending.append(item)
        self.count.setText(f"{len(rows):,} images")
        self._icon_timer.start()

    def _set_status(self, item: QListWidgetItem, status: str) -> None:
        confidence = item.data(CONFIDENCE_ROLE)
        sure = "" if confidence is None else f" {confidence:.2f}"
        item.setData(STATUS_ROLE, status)
        item.setText(f"{STATUS_MARK[status]}{sure}")
        item.setBackground(QBrush(QColor(STATUS_BACKGROUND[status])))
        item.setToolTip(f"{item.data(ID_ROLE)} — {status}")

    def _load_some_icons(self) -> None:
        project = self.workspace.project
        batch, self._pending = self._pending[:ICONS_PER_TICK], self._pending[ICONS_PER_TICK:]
        for item in batch:
            image = project.image(item.data(ID_ROLE)) if project else None
            if image is not None:
                item.setIcon(QIcon(load_pixmap(project.image_path(image), THUMB)))
        if not self._pending:
            self._icon_timer.stop()

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
        self.count.setText(f"{len(items):,} marked {status} · {self.grid.count():,} images")
        self.labels_changed.emit(name)
