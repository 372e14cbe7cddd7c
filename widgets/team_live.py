"""The Dashboard's "Team (live)" section: a coordinator watches the server's progress.

Shown only while the studio is connected as a coordinator. ``GET /v1/progress`` is asked
on the net lane every few seconds while the Dashboard is on screen (never while it is
hidden: a coordinator's studio left open all day should not poll for nobody), and the
figures are drawn on the UI thread: pairs complete against the per-pair quota, captions
by status, leases held right now, and submitted captions per person.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGroupBox, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout

from studio.server.client import Client
from studio.wording import count
from widgets.team_connection import TeamConnection

PROGRESS_MS = 5000


class TeamLive(QGroupBox):
    def __init__(self, connection: TeamConnection) -> None:
        super().__init__("Team (live)")
        self.setObjectName("team_live")
        self.connection = connection
        self.summary = QLabel("Asking the team server…")
        self.summary.setWordWrap(True)
        self.people = QTableWidget(0, 2)
        self.people.setHorizontalHeaderLabels(["Person", "Captions submitted"])
        self.people.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.people.setMaximumHeight(160)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.people)
        self.figures: dict[str, Any] | None = None
        self._timer = QTimer(self, interval=PROGRESS_MS)
        self._timer.timeout.connect(self.ask)
        self._asking = False
        connection.identity_changed.connect(self._follow)
        self._follow()

    def watching(self) -> bool:
        return self.connection.connected and self.connection.role == "coordinator"

    def _follow(self) -> None:
        self._asking = False  # an answer meant for the last connection never comes
        self.setVisible(self.watching())
        if self.watching():
            self._timer.start()
            self.ask()
        else:
            self._timer.stop()
            self.figures = None

    def ask(self) -> None:
        if not self.watching() or self._asking:
            return
        if not self.isVisible() and self.figures is not None:
            return  # asked again when the Dashboard shows
        self._asking = True
        self.connection.run(Client.progress, done=self._show, failed=self._failed, owner=self)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        self.ask()

    def _failed(self, error: BaseException) -> None:
        self._asking = False
        self.summary.setText(f"The team server did not answer ({error}); trying again.")

    def _show(self, figures: dict[str, Any]) -> None:
        self._asking = False
        self.figures = figures
        captions = figures.get("captions", {})
        held = figures.get("leases_by_kind") or {}
        by_status = ", ".join(f"{n:,} {status}" for status, n in sorted(captions.items()))
        self.summary.setText(
            f"{figures['pairs_complete']:,} of {count(figures['pairs'], 'pair')} complete "
            f"({figures['per_pair']} per pair) · captions: {by_status or 'none yet'} · "
            f"{count(held.get('caption', 0) if held else figures['active_leases'], 'pair')} being written "
            f"now · "
            f"{self.connection.url}"
        )
        extra = []
        if figures.get("reviewed_by"):
            extra.append(f"{count(sum(figures['reviewed_by'].values()), 'caption')} reviewed")
        if figures.get("images_to_decide") is not None:
            extra.append(f"{count(figures['images_to_decide'], 'image')} with labels to decide")
        ratings = figures.get("ratings") or {}
        if ratings:
            extra.append("rating items: " + ", ".join(
                f"{n:,} {status}" for status, n in sorted(ratings.items())))
        if extra:
            self.summary.setText(self.summary.text() + " · " + " · ".join(extra))
        people = figures.get("submitted_by", {})
        self.people.setRowCount(len(people))
        for row, (name, n) in enumerate(sorted(people.items())):
            self.people.setItem(row, 0, QTableWidgetItem(name))
            self.people.setItem(row, 1, QTableWidgetItem(f"{n:,}"))
