"""Reference | target side by side, with product titles and descriptions, and zoom.

Pictures come from the shared ``ThumbnailCache`` at the size shown, so the view never
decodes on the UI thread; it shows a placeholder until the file is read. Ctrl+Plus,
Ctrl+Minus and Ctrl+0 zoom both images together (details are compared side by side).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from studio.store import Project
from studio.store.records import ImageRecord
from widgets.thumbnail_cache import ThumbnailCache

BASE_SIZE = 300
ZOOM_STEPS = (50, 75, 100, 150, 200, 300)


class ImagePanel(QWidget):
    """One side: heading, picture (scrollable when zoomed in), id, title, description."""

    def __init__(self, heading: str, thumbnails: ThumbnailCache, parent=None) -> None:
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.path: str | None = None
        self.missing = False
        self.size = BASE_SIZE
        self.heading = QLabel(heading)
        self.heading.setObjectName("paneHeading")
        self.heading.setWordWrap(True)
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.picture)
        self.scroll.setWidgetResizable(True)
        self.scroll.setMinimumSize(120, 200)
        self.image_id = QLabel()
        self.image_id.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: 600;")
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setStyleSheet("color: #4b5563;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.heading, self.scroll, self.image_id, self.title, self.description):
            layout.addWidget(widget, 1 if widget is self.scroll else 0)
        thumbnails.ready.connect(self._on_ready)

    def show_image(self, project: Project | None, image: ImageRecord | None, size: int) -> None:
        self.size = size
        if image is None or project is None:
            self.path, self.missing = None, False
            self.image_id.setText("")
            self.title.setText("(no target: hidden in this split)" if project else "")
            self.description.setText("")
        else:
            path = project.image_file(image)  # None: its stored path leaves the image root
            self.path = str(path) if path is not None else None
            self.missing = image.missing or path is None
            self.image_id.setText(image.id + ("  ·  image file missing" if image.missing else ""))
            self.title.setText(image.title or "(no title)")
            self.description.setText(image.description)
        self._draw()

    def set_size(self, size: int) -> None:
        self.size = size
        self._draw()

    def _draw(self) -> None:
        self.picture.setPixmap(self.thumbnails.get(self.path, self.size, self.missing))

    def _on_ready(self, path: str, size: int) -> None:
        if path == self.path and size == self.size:
            self._draw()


class PairView(QWidget):
    def __init__(self, thumbnails: ThumbnailCache, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.reference = ImagePanel("Reference (the provided image)", thumbnails)
        self.target = ImagePanel("Target (the one I want)", thumbnails)
        self.zoom = QSlider(Qt.Orientation.Horizontal)
        self.zoom.setRange(0, len(ZOOM_STEPS) - 1)
        self.zoom.setValue(ZOOM_STEPS.index(100))
        self.zoom.setFixedWidth(160)
        self.zoom.valueChanged.connect(self._apply_zoom)
        self.zoom_label = QLabel()
        zoom_row = QHBoxLayout()
        zoom_row.addStretch(1)
        zoom_row.addWidget(QLabel("Zoom (Ctrl+Plus / Ctrl+Minus / Ctrl+0)"))
        zoom_row.addWidget(self.zoom)
        zoom_row.addWidget(self.zoom_label)
        sides = QHBoxLayout()
        sides.addWidget(self.reference, 1)
        sides.addWidget(self.target, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(sides, 1)
        layout.addLayout(zoom_row)
        for keys, step in (("Ctrl++", 1), ("Ctrl+=", 1), ("Ctrl+-", -1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda s=step: self.zoom.setValue(self.zoom.value() + s))
        reset = QShortcut(QKeySequence("Ctrl+0"), self)
        reset.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        reset.activated.connect(lambda: self.zoom.setValue(ZOOM_STEPS.index(100)))
        self._apply_zoom()

    @property
    def image_size(self) -> int:
        return BASE_SIZE * ZOOM_STEPS[self.zoom.value()] // 100

    def show_pair(
        self, project: Project | None, reference_id: str | None, target_id: str | None
    ) -> None:
        self.project = project
        reference = project.image(reference_id) if project and reference_id else None
        target = project.image(target_id) if project and target_id else None
        self.reference.show_image(project, reference, self.image_size)
        self.target.show_image(project, target, self.image_size)

    def clear(self) -> None:
        self.reference.show_image(None, None, self.image_size)
        self.target.show_image(None, None, self.image_size)

    def _apply_zoom(self) -> None:
        self.zoom_label.setText(f"{ZOOM_STEPS[self.zoom.value()]}%")
        for panel in (self.reference, self.target):
            panel.set_size(self.image_size)
