"""Dashboard: per person, the team work handed out, when it came back, what is outstanding."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from studio.store import Project
from studio.team.assignments import team_progress
from studio.wording import count

COLUMNS = ("Person", "Assigned", "Outstanding", "Packages", "Handed out", "Came back", "Edits back")


NOUNS = {"caption": "caption", "review": "review", "attributes": "image", "rating": "rating"}


def _work(counts: dict[str, int], kinds: list[str]) -> str:
    return ", ".join(count(counts.get(kind, 0), NOUNS.get(kind, kind)) for kind in kinds)


def _when(stamp: str | None) -> str:
    return stamp[:16].replace("T", " ") if stamp else "—"


class TeamProgress(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Team work")
        layout.addWidget(self.title)
        self.empty = QLabel(
            "No team work yet: File → Team → Assign work… hands captions, "
            "reviews, attribute batches and ratings out to people."
        )
        self.empty.setWordWrap(True)
        layout.addWidget(self.empty)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setMaximumHeight(170)
        self.table.setToolTip(
            "Outstanding: assigned work whose result is not in this "
            "project yet (merge the person's package to bring it in). Images: attribute "
            "batches"
        )
        layout.addWidget(self.table)

    def refresh(self, project: Project) -> None:
        rows = team_progress(project)
        self.empty.setVisible(not rows)
        self.table.setVisible(bool(rows))
        self.table.setRowCount(len(rows))
        for row, person in enumerate(rows):
            kinds = sorted(person.assigned)
            assigned = _work(person.assigned, kinds)
            outstanding = _work(person.outstanding, kinds)
            values = (
                person.name,
                assigned,
                outstanding,
                str(person.packages),
                _when(person.handed_out_at),
                _when(person.came_back_at),
                str(person.edits_back),
            )
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
