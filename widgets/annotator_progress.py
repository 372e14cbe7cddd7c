"""Who wrote how much: per-annotator captions by status and captions per hour."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from studio.wording import count, plural
from widgets.elided_label import ElidedLabel

COLUMNS = ("Annotator", "Written", "Accepted", "Rejected", "Drafts", "Per hour")


class AnnotatorProgress(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = ElidedLabel()
        self.summary.setObjectName("progressSummary")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setMaximumHeight(140)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)

    def show_counts(self, rows: list[dict], user: str, remaining: int, mode: str) -> None:
        """Show counts read elsewhere (``annotator_throughput`` and the queue's length, read
        on the IO lane by the Captions pane)."""
        mine = next((r for r in rows if r["name"] == user), None)
        written = mine["written"] if mine else 0
        rate = (
            f" · {mine['per_hour']:g} {plural('caption', mine['per_hour'])} per hour"
            if mine and mine["per_hour"]
            else ""
        )
        left = (
            f"{count(remaining, 'pair')} left for you"
            if mode == "write"
            else f"{count(remaining, 'caption')} waiting for review"
        )
        self.summary.setText(f"{user}: {count(written, 'caption')} written{rate} · {left}")
        self.table.setRowCount(len(rows))
        for row, entry in enumerate(rows):
            values = (
                entry["name"],
                entry["written"],
                entry["accepted"],
                entry["rejected"],
                entry["draft"],
                "" if entry["per_hour"] is None else f"{entry['per_hour']:g}",
            )
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(str(value)))

