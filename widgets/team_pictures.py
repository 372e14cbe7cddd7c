"""The pair's two pictures in team mode, from wherever the person can get them.

In order: a local copy of the image root (Settings → ``team_image_root``), the team
server's picture endpoint (authenticated, cached on disk by the client) when the client
has one, else a grey box that says why ("picture not available offline"). Reading and
decoding (to the size shown) run on the net lane through the connection and give a
``QImage``; the UI thread only draws it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.server.local_pictures import find_picture
from widgets.team_connection import TeamConnection
from widgets.thumbnail_cache import decode

SIZE = 320
NOT_OFFLINE = "picture not available offline"
UNREADABLE = "picture not available: its file cannot be read"


def load_picture(client: Client, image_id: str, size: int, local_root: str) -> QImage | None:
    """Net lane: the picture decoded to fit ``size`` (a full-size local file is never
    decoded on the UI thread), or None when its bytes are no picture."""
    if local_root:
        path = find_picture(Path(local_root), image_id)
        if path is not None:
            image = decode(str(path), size)
            return None if image.isNull() else image
    image = QImage.fromData(client.picture(image_id, size))
    if image.isNull():
        return None
    if image.width() > size or image.height() > size:
        image = image.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    return image


class TeamPicture(QWidget):
    def __init__(self, heading: str, parent: QWidget | None = None, size: int = SIZE) -> None:
        super().__init__(parent)
        self.picture_size = size
        self.heading = QLabel(f"<b>{heading}</b>")
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(size // 2, size // 2)
        self.picture.setStyleSheet("background: #e5e7eb; color: #4b5563;")
        self.picture.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.picture, 1)

    def say(self, text: str) -> None:
        self.picture.setPixmap(QPixmap())
        self.picture.setText(text)

    def load(self, connection: TeamConnection, image_id: str, current: Callable[[], bool]) -> None:
        """Read ``image_id`` on the net lane; draw it if ``current()`` still holds then
        (the person may have moved on to another item meanwhile)."""
        self.say("loading…")
        root = connection.services.workspace.settings.team_image_root
        connection.run(
            load_picture, image_id, self.picture_size, root,
            done=lambda image: current() and self.draw(image),
            failed=lambda error: current() and self._missing(error),
            owner=self, tells_online=False,
        )

    def _missing(self, error: BaseException) -> None:
        if isinstance(error, Offline):
            self.say(NOT_OFFLINE)
        elif isinstance(error, StudioError):
            self.say(f"picture not available: {error}")
        else:
            raise error

    def draw(self, image: QImage | None, not_found: str = UNREADABLE) -> None:
        if image is None:
            self.say(not_found)
            return
        self.picture.setText("")
        self.picture.setPixmap(QPixmap.fromImage(image))


class TeamPictures(QWidget):
    def __init__(self, connection: TeamConnection, parent: QWidget | None = None,
                 size: int = SIZE, headings: tuple[str, str] = (
                     "Reference (the provided image)", "Target (the one I want)")) -> None:
        super().__init__(parent)
        self.connection = connection
        self.reference = TeamPicture(headings[0], size=size)
        self.target = TeamPicture(headings[1], size=size)
        layout = QHBoxLayout(self)
        layout.addWidget(self.reference)
        layout.addWidget(self.target)
        self._shown: Any = None

    def show_item(self, item: dict[str, Any] | None) -> None:
        self._shown = item
        for panel, key in ((self.reference, "reference_id"), (self.target, "target_id")):
            image_id = item.get(key) if item else None
            if not image_id:
                panel.say("")
                continue
            panel.load(self.connection, str(image_id), lambda i=item: i is self._shown)
