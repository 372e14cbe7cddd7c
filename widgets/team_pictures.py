"""The pair's two pictures in team mode, from wherever the person can get them.

In order: a local copy of the image root (Settings → ``team_image_root``), the team
server's picture endpoint (authenticated, cached on disk by the client) when the client
has one, else a grey box that says why ("picture not available offline"). Loading runs
on the net lane through the connection; the picture is drawn on the UI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.server.local_pictures import find_picture
from widgets.team_connection import TeamConnection

SIZE = 320
NOT_OFFLINE = "picture not available offline"
NOT_SERVED = ("picture not available: this server does not serve pictures; choose a "
              "local copy of the image root")


def load_picture(client: Client, image_id: str, size: int, local_root: str) -> bytes | None:
    """Net lane: the picture's bytes, or None when nobody can give it."""
    if local_root:
        path = find_picture(Path(local_root), image_id)
        if path is not None:
            return path.read_bytes()
    fetch = getattr(client, "picture", None)
    if fetch is None:
        return None
    return bytes(fetch(image_id, size))


class TeamPicture(QWidget):
    def __init__(self, heading: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(f"<b>{heading}</b>")
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(SIZE // 2, SIZE // 2)
        self.picture.setStyleSheet("background: #e5e7eb; color: #4b5563;")
        self.picture.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.picture, 1)

    def say(self, text: str) -> None:
        self.picture.setPixmap(QPixmap())
        self.picture.setText(text)

    def draw(self, data: bytes | None, not_found: str) -> None:
        pixmap = QPixmap()
        if data is None or not pixmap.loadFromData(data):
            self.say(not_found)
            return
        self.picture.setText("")
        self.picture.setPixmap(pixmap.scaled(
            SIZE, SIZE, Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation))


class TeamPictures(QWidget):
    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.connection = connection
        self.reference = TeamPicture("Reference (the provided image)")
        self.target = TeamPicture("Target (the one I want)")
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
            panel.say("loading…")
            root = self.connection.services.workspace.settings.team_image_root
            self.connection.run(
                load_picture, str(image_id), SIZE, root,
                done=lambda data, p=panel, i=item: self._drawn(i, p, data, NOT_SERVED),
                failed=lambda error, p=panel, i=item: self._missing(i, p, error),
                owner=self, tells_online=False,
            )

    def _drawn(self, item: Any, panel: TeamPicture, data: bytes | None, why: str) -> None:
        if item is self._shown:
            panel.draw(data, why)

    def _missing(self, item: Any, panel: TeamPicture, error: BaseException) -> None:
        if item is not self._shown:
            return
        if isinstance(error, Offline):
            panel.say(NOT_OFFLINE)
        elif isinstance(error, StudioError):
            panel.say(f"picture not available: {error}")
        else:
            raise error
