"""Dashboard: what the open project holds, at a glance.

Totals, charts people look at (captions per day per annotator, labels decided per type,
ratings done against assigned), images per category and split, the model suggestions'
precision and recall, and the team's work packages. The page scrolls when the window is small.
``refresh(project)`` re-reads everything; project events call it when something changes.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QGroupBox,
    QLabel,
    QScrollArea,
    QStackedLayout,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.project_events import KINDS
from studio.project_stats import caption_totals, image_counts_by_category_split
from studio.store import Project
from studio.wording import plural
from widgets.attribute_quality_plot import AttributeQualityPlot
from widgets.dashboard_charts import DashboardCharts
from widgets.elided_label import ElidedLabel
from widgets.panes.pane import Pane, empty_state
from widgets.project_signals import follow
from widgets.rank_distribution import RankDistribution
from widgets.services import Services
from widgets.team_live import TeamLive
from widgets.team_progress import TeamProgress

TABLE_LABELS = {
    "images": "Images",
    "pairs": "Pairs",
    "captions": "Captions",
    "people": "People",
    "image_attributes": "Attribute labels",
    "retrieval_sessions": "Retrieval sessions",
    "transactions": "Transactions",
    "ratings": "Ratings",
    "audit_log": "Recorded edits",
}


# The writes that change the activity charts (captions per day, labels per type, ratings).
CHART_KINDS = ("captions", "labels", "ratings", "people")


class DashboardPane(Pane):
    title = "Dashboard"
    tooltip = "Counts and statistics of the open project"

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        workspace = self.workspace
        # The team server's live figures (a coordinator's), above the local project's.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.team_live = TeamLive(services.team)
        outer.addWidget(self.team_live)
        holder = QWidget()
        outer.addWidget(holder, 1)
        self._stack = QStackedLayout(holder)
        self._stack.addWidget(
            empty_state("No project open", "Create a project or open the demo from the File menu.")
        )
        content = QWidget()
        layout = QVBoxLayout(content)
        self.heading = ElidedLabel()
        self.heading.setObjectName("paneHeading")
        layout.addWidget(self.heading)
        totals = QGroupBox("Totals")
        self.totals = QGridLayout(totals)
        self.count_labels: dict[str, QLabel] = {}
        for row, (key, text) in enumerate(TABLE_LABELS.items()):
            self.totals.addWidget(QLabel(text), row // 3, (row % 3) * 2)
            value = QLabel("0")
            value.setObjectName("countValue")
            self.count_labels[key] = value
            self.totals.addWidget(value, row // 3, (row % 3) * 2 + 1)
        layout.addWidget(totals)
        self.charts = DashboardCharts()
        layout.addWidget(self.charts)
        layout.addWidget(QLabel("Images per category and split"))
        self.split_table = QTableWidget()
        self.split_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.split_table.setMinimumHeight(130)
        self.split_table.setMaximumHeight(170)
        layout.addWidget(self.split_table)
        layout.addWidget(QLabel("Attribute suggestions: precision and recall"))
        self.attribute_quality = AttributeQualityPlot()
        layout.addWidget(self.attribute_quality)
        self.team_progress = TeamProgress()
        layout.addWidget(self.team_progress)
        layout.addWidget(QLabel("Does each caption find its target? Ranks per annotator"))
        self.rank_distribution = RankDistribution()
        layout.addWidget(self.rank_distribution)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        self._stack.addWidget(scroll)
        # Counts follow every write; the charts (a few queries and a redraw) only the writes
        # that change them, and only while shown (else on next show).
        self._charts: dict[str, DashboardCharts | AttributeQualityPlot | RankDistribution] = {
            "activity": self.charts, "quality": self.attribute_quality,
            "ranks": self.rank_distribution,
        }
        self._stale: set[str] = set()  # charts to redraw when next shown
        self._draw_pending = False
        follow(self, workspace, KINDS, self._on_project_written)
        follow(self, workspace, CHART_KINDS, lambda: self._redraw({"activity"}))
        follow(self, workspace, ("labels", "vocabulary"), lambda: self._redraw({"quality"}))
        follow(self, workspace, ("captions", "people"), lambda: self._redraw({"ranks"}))

    def _on_project_written(self) -> None:
        if self.workspace.project is not None:
            self.refresh(self.workspace.project, chart=False)

    def _redraw(self, charts: set[str]) -> None:
        """Redraw ``charts`` now if the pane is shown, else when it next shows."""
        self._stale |= charts
        self._draw_what_waits()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._draw_what_waits()

    def show_project(self, project: Project | None) -> None:
        """The counts now; the charts (0.4 s of matplotlib on a small project) once the
        window has painted, and only if this pane is still shown then (opening a project
        on another pane, or going to one at once, draws nothing until the Dashboard shows)."""
        if project is None:
            self._stack.setCurrentIndex(0)
            return
        self.refresh(project, chart=False)
        self._stale |= set(self._charts)
        self._stack.setCurrentIndex(1)
        if not self._draw_pending:
            self._draw_pending = True
            QTimer.singleShot(0, self, self._draw_what_waits)

    def _draw_what_waits(self) -> None:
        self._draw_pending = False
        project = self.workspace.project
        if project is None or not self.isVisible():
            return
        for name in sorted(self._stale):
            self._charts[name].refresh(project)
        self._stale.clear()

    def refresh(self, project: Project, chart: bool = True) -> None:
        self.heading.setText(f"{project.name} — {project.shown_location}")
        for key, value in project.table_counts().items():
            if key in self.count_labels:
                self.count_labels[key].setText(f"{value:,}")
        written, drafts = caption_totals(project)
        self.count_labels["captions"].setText(
            f"{written:,}" + (f" (+{drafts:,} {plural('draft', drafts)})" if drafts else "")
        )
        if chart:
            self._stale.clear()
            for plot in self._charts.values():
                plot.refresh(project)
        self.team_progress.refresh(project)
        counts = image_counts_by_category_split(project)
        splits = sorted({split for per_split in counts.values() for split in per_split})
        self.split_table.setRowCount(len(counts))
        self.split_table.setColumnCount(len(splits) + 1)
        self.split_table.setHorizontalHeaderLabels([*splits, "total"])
        self.split_table.setVerticalHeaderLabels(list(counts) or [])
        for row, per_split in enumerate(counts.values()):
            for column, split in enumerate(splits):
                self.split_table.setItem(
                    row, column, QTableWidgetItem(str(per_split.get(split, 0)))
                )
            self.split_table.setItem(
                row, len(splits), QTableWidgetItem(str(sum(per_split.values())))
            )
