"""One turn as a rater sees it: reference image → modification text → target image.

Shows images and texts only; a turn strip is built from a ``RatingItem``'s ``TurnView``,
which carries nothing about where the transaction came from.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.quality.ratings import ImageView, TurnView


class ImageTile(QWidget):
    """A scaled picture with an optional caption; a clear placeholder if the file is gone."""

    def __init__(self, image: ImageView, size: int, label: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        if label:
            heading = QLabel(label)
            heading.setObjectName("rubric")
            layout.addWidget(heading)
        self.picture = QLabel()
        self.picture.setFixedSize(size, size)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        pixmap = QPixmap(str(image.path))
        if pixmap.isNull():
            self.picture.setText("image not found")
            self.picture.setStyleSheet("border: 1px dashed #9ca3af; color: #6b7280;")
        else:
            self.picture.setPixmap(pixmap.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                                 Qt.TransformationMode.SmoothTransformation))
        layout.addWidget(self.picture)
        if image.caption:
            caption = QLabel(image.caption)
            caption.setWordWrap(True)
            caption.setMaximumWidth(size)
            caption.setObjectName("rubric")
            layout.addWidget(caption)


class TurnStrip(QFrame):
    """Reference | text | target, side by side from the left (not spread to the window's
    edges, so the two pictures compare at a glance); ``compact`` for the earlier turns."""

    def __init__(self, turn: TurnView, compact: bool, parent: QWidget | None = None,
                 size: int | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        size = size or (80 if compact else 240)
        layout = QHBoxLayout(self)
        self.reference_tile = ImageTile(turn.reference, size, "" if compact else "Reference")
        layout.addWidget(self.reference_tile)
        text = QLabel(f"<b>Turn {turn.index}</b><br>{_escape(turn.text)}")
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.setMinimumWidth(160)
        text.setMaximumWidth(300)
        if not compact:
            text.setStyleSheet("font-size: 15px;")
        layout.addWidget(text, 1)
        self.target_tile = ImageTile(turn.target, size, "" if compact else "Target")
        layout.addWidget(self.target_tile)
        layout.addStretch(1)
        self.text_label = text


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
