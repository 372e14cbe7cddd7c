"""The summary shown after File → Team → Merge work…: what came back, and every conflict."""

from __future__ import annotations

import json

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.team.merge import MergeReport
from studio.wording import count

COLUMNS = ("Package of", "Record", "Kept", "Lost (in the audit log)")


def _short(content: dict) -> str:
    for key in ("text", "status", "note"):
        if key in content and content[key]:
            return f"{content.get('status', '')} {content.get('text', content[key])}".strip()
    return json.dumps(content, sort_keys=True)[:80]


class MergeSummaryDialog(QDialog):
    def __init__(self, reports: list[MergeReport], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Merged work")
        self.resize(720, 420)
        layout = QVBoxLayout(self)
        self.lines = QLabel("\n".join(report.summary() for report in reports))
        self.lines.setObjectName("mergeSummary")
        self.lines.setWordWrap(True)
        layout.addWidget(self.lines)
        conflicts = [(r.person, c) for r in reports for c in r.conflicts]
        rule = QLabel(
            "Where a record was changed in two places, the later edit is kept "
            "(ties: the larger content hash); conflicting captions are back in the "
            "review queue."
            if conflicts
            else "No conflicts."
        )
        rule.setWordWrap(True)
        layout.addWidget(rule)
        self.table = QTableWidget(len(conflicts), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (person, conflict) in enumerate(conflicts):
            values = (
                person,
                f"{conflict['kind']} {conflict['uid'][:8]}",
                _short(conflict["kept"]),
                _short(conflict["lost"]),
            )
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        layout.addWidget(self.table, 1)
        unplaced = sum(len(r.unplaced) for r in reports)
        if unplaced:
            layout.addWidget(
                QLabel(
                    f"{count(unplaced, 'record')} {'refers' if unplaced == 1 else 'refer'} to "
                    "pairs or images no longer in the project and "
                    f"{'was' if unplaced == 1 else 'were'} not placed."
                )
            )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
