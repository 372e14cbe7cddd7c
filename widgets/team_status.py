"""The status bar's word on the team server: "online as ana (annotator)" or "offline — 3
edits waiting"; hidden while the studio is not connected. It follows the connection's
``changed`` signal, so it is right the moment a call succeeds or fails."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from widgets.elided_label import ElidedLabel
from widgets.team_connection import TeamConnection


class TeamStatus(ElidedLabel):  # elided when long, whole in the tooltip
    def __init__(self, connection: TeamConnection, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("team_status")
        self.connection = connection
        connection.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        connection = self.connection
        text = connection.status_text()
        self.setText(text)
        self.setVisible(bool(text))
        colour = "#15803d" if connection.online else "#b45309"
        self.setStyleSheet(f"color: {colour}; padding: 0 6px;")
        self.setToolTip(
            f"Team server {connection.url}" + (
                f"\n{connection.last_error}" if connection.last_error and not connection.online
                else ""
            )
        )
