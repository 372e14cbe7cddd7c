"""Reference | target side by side, with product titles and descriptions, and zoom.

Pictures come from the shared ``ThumbnailCache`` at the size shown, so the view never
decodes on the UI thread; it shows a placeholder until the file is read. At 100 % a
picture fits the space it has (whole, without scroll bars, in a small window too);
Ctrl+Plus, Ctrl+Minus and Ctrl+0 zoom both images together (details are compared side by
side), keeping the garment centred. ``install_zoom_keys`` makes those keys work anywhere
in a pane, whatever has the focus.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QScrollBar,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from studio.store import Project
from studio.store.records import ImageRecord
from widgets import actions
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.thumbnail_cache import ThumbnailCache

BASE_SIZE = 300  # the fitted size before the panel is laid out
FIT_STEP = 24  # fitted sizes are rounded down to this, so a resize rarely asks for a decode
MIN_FIT, MAX_FIT = 72, 720
ZOOM_STEPS = (50, 75, 100, 150, 200, 300)


class ImagePanel(QWidget):
    """One side: heading, picture (scrollable when zoomed in), id, title, description."""

    def __init__(self, heading: str, thumbnails: ThumbnailCache, parent=None) -> None:
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.path: str | None = None
        self.missing = False
        self.shown_id = ""
        self.zoom = 100
        self.fit = BASE_SIZE
        self.heading = QLabel(heading)
        self.heading.setObjectName("paneHeading")
        self.heading.setWordWrap(True)
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.picture)
        self.scroll.setWidgetResizable(True)
        self.scroll.setMinimumSize(96, 96)
        self.scroll.installEventFilter(self)
        for bar in (self.scroll.horizontalScrollBar(), self.scroll.verticalScrollBar()):
            bar.rangeChanged.connect(lambda low, high, b=bar: _centre(b, low, high))
        self.image_id = ElidedLabel()
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

    @property
    def shown_size(self) -> int:
        """The picture's edge in pixels: the fitted size times the zoom."""
        return max(16, self.fit * self.zoom // 100)

    def show_image(self, project: Project | None, image: ImageRecord | None, zoom: int) -> None:
        self.zoom = zoom
        if image is None or project is None:
            self.path, self.missing, self.shown_id = None, False, ""
            self.image_id.setText("")
            self.title.setText("(no target: hidden in this split)" if project else "")
            self.description.setText("")
        else:
            path = project.image_file(image)  # None: its stored path leaves the image root
            self.path = str(path) if path is not None else None
            self.missing = image.missing or path is None
            self.shown_id = image.id
            self.image_id.setText(image.id + ("  ·  image file missing" if image.missing else ""))
            self.title.setText(image.title or "(no title)")
            self.description.setText(image.description)
        self._draw()

    def set_zoom(self, zoom: int) -> None:
        self.zoom = zoom
        self._draw()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt name)
        if watched is self.scroll and event.type() == QEvent.Type.Resize:
            self._fit_to(event.size())
        return super().eventFilter(watched, event)

    def _fit_to(self, size: QSize) -> None:
        """The fitted size: the scroll area's inside, without scroll bars (none are needed)."""
        frame = 2 * self.scroll.frameWidth()
        edge = min(size.width(), size.height()) - frame - 2
        fit = max(MIN_FIT, min(MAX_FIT, edge // FIT_STEP * FIT_STEP))
        if fit != self.fit:
            self.fit = fit
            self._draw()

    def _draw(self) -> None:
        if self.missing:  # the grey box says which picture is missing, not just "missing"
            text = f"picture missing\n{self.shown_id}"
            self.picture.setPixmap(self.thumbnails.placeholder(self.shown_size, text))
            return
        self.picture.setPixmap(self.thumbnails.get(self.path, self.shown_size, self.missing))

    def _on_ready(self, path: str, size: int) -> None:
        if path == self.path and size == self.shown_size:
            self._draw()


def _centre(bar: QScrollBar, low: int, high: int) -> None:
    """A zoomed picture opens on its middle, where the garment is."""
    bar.setValue((low + high) // 2)


class PairView(QWidget):
    def __init__(self, thumbnails: ThumbnailCache, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.reference = ImagePanel("Reference (the provided image)", thumbnails)
        self.target = ImagePanel("Target (the one I want)", thumbnails)
        self.zoom = QSlider(Qt.Orientation.Horizontal)
        self.zoom.setRange(0, len(ZOOM_STEPS) - 1)
        self.zoom.setValue(ZOOM_STEPS.index(100))
        self.zoom.setFixedWidth(120)
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
        self.notice = WrappedLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #b45309;")
        self.notice.hide()
        layout.addLayout(sides, 1)
        layout.addWidget(self.notice)
        layout.addLayout(zoom_row)
        self._zoom_keys: list[QShortcut] = []
        self.install_zoom_keys(self)
        self._apply_zoom()

    def install_zoom_keys(self, host: QWidget, pane: str = "pairs") -> None:
        """Ctrl+Plus/Minus/0 zoom while the focus is anywhere inside ``host`` (the pane);
        the keys are the ``{pane}.zoom_*`` actions of the key map (widgets/actions.py)."""
        for shortcut in self._zoom_keys:  # one set only: two would make the keys ambiguous
            shortcut.setEnabled(False)
            shortcut.deleteLater()
        self._zoom_keys = []
        for name, step in (("zoom_in", 1), ("zoom_out", -1), ("zoom_reset", 0)):
            self._zoom_keys += actions.bind(host, f"{pane}.{name}",
                                            lambda s=step: self._zoom_by(s))

    def _zoom_by(self, step: int) -> None:
        value = ZOOM_STEPS.index(100) if step == 0 else self.zoom.value() + step
        self.zoom.setValue(value)

    @property
    def zoom_percent(self) -> int:
        return ZOOM_STEPS[self.zoom.value()]

    @property
    def image_size(self) -> int:
        return self.reference.shown_size

    def show_pair(
        self, project: Project | None, reference_id: str | None, target_id: str | None
    ) -> None:
        self.project = project
        reference = project.image(reference_id) if project and reference_id else None
        target = project.image(target_id) if project and target_id else None
        self.reference.show_image(project, reference, self.zoom_percent)
        self.target.show_image(project, target, self.zoom_percent)
        self._say_what_is_missing(project)

    def clear(self) -> None:
        self.reference.show_image(None, None, self.zoom_percent)
        self.target.show_image(None, None, self.zoom_percent)
        self.notice.hide()

    def _say_what_is_missing(self, project: Project | None) -> None:
        """A pair whose pictures are missing says so, and how to find them."""
        gone = [f"{panel.shown_id} ({name})" for name, panel in
                (("reference", self.reference), ("target", self.target))
                if panel.missing and panel.shown_id]
        if not gone or project is None:
            self.notice.hide()
            return
        self.notice.setText(
            f"Picture missing: {' and '.join(gone)} has no file under the image folder "
            f"{project.image_root}. File → Set image folder… points the project at the "
            "folder that holds its pictures.")
        self.notice.show()

    def _apply_zoom(self) -> None:
        self.zoom_label.setText(f"{self.zoom_percent}%")
        for panel in (self.reference, self.target):
            panel.set_zoom(self.zoom_percent)
