"""The Report tab: datasets × criteria table, agreement, indicators, chart and exports.

The report is built as a job off the UI thread (it reads every rating and computes the
indicators). The chart is a matplotlib figure embedded with backend_qtagg; matplotlib is
imported the first time the report is shown, not when the window opens.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import CancelToken, JobCancelled, ProgressCallback
from studio.quality.criteria import PERCENT_FORMULA
from studio.quality.indicators import INDICATOR_NAMES
from studio.quality.report import ALPHA_METHOD, CI_METHOD, QualityReport, build_report
from studio.quality.report_export import (
    HEADINGS,
    cell_text,
    rho_text,
    table_rows,
    to_csv,
    to_markdown,
    write_text,
)
from studio.store import Project
from studio.workspace import Workspace
from widgets.elided_label import ElidedLabel, WrappedLabel
from widgets.file_dialogs import save_file
from widgets.job_runner import JobRunner

# The pane never loads a model on the UI thread; the CLI report adds the indicator.
NO_EMBEDDER = ("the pane does not load embedding models; 'cir-studio quality report' adds it "
               "when the project has an index")


def build_pane_report(
    project: Project, *, progress: ProgressCallback, cancel: CancelToken
) -> QualityReport:
    """The report as a job: what the pane shows (no embedding indicator)."""
    progress(0, 1, "Reading the ratings")
    report = build_report(project, no_embedder_reason=NO_EMBEDDER)
    progress(1, 1, "Report ready")
    return report


class QualityReportView(QWidget):
    def __init__(
        self, workspace: Workspace, runner: JobRunner | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.runner = runner
        self.report: QualityReport | None = None
        self.canvas = None
        self._building = False
        self._again = False
        layout = QVBoxLayout(self)
        buttons = QHBoxLayout()
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        buttons.addWidget(refresh)
        self.status = ElidedLabel()
        self.status.setObjectName("rubric")
        buttons.addWidget(self.status)
        buttons.addStretch(1)
        for text, slot in (("Export CSV…", self._ask_csv), ("Export Markdown…", self._ask_md),
                           ("Export PNG…", self._ask_png)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        layout.addLayout(buttons)
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        layout.addWidget(self.table, 2)
        self.method = QLabel(f"{PERCENT_FORMULA}. {CI_METHOD}. {ALPHA_METHOD}.")
        self.method.setWordWrap(True)
        self.method.setObjectName("rubric")
        layout.addWidget(self.method)
        self.chart_box = QVBoxLayout()
        layout.addLayout(self.chart_box, 3)
        layout.addWidget(QLabel("Automatic indicators vs. human scores (Spearman's rho)"))
        self.indicators = QTableWidget()
        self.indicators.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout.addWidget(self.indicators, 1)
        self.notes = WrappedLabel()
        self.notes.setWordWrap(True)
        self.notes.setObjectName("rubric")
        layout.addWidget(self.notes)

    def refresh(self) -> None:
        """Rebuild the report: as a job when there is a runner, else at once."""
        project = self.workspace.project
        if project is None:
            return
        if self.runner is None:
            self.show_report(build_report(project, no_embedder_reason=NO_EMBEDDER))
            return
        if self._building:
            self._again = True
            return
        self._build(project)

    @asyncSlot()
    async def _build(self, project: Project) -> None:
        assert self.runner is not None
        self._building = True
        self.status.setText("Building the report…")
        try:
            report = await self.runner.run("Building the quality report", build_pane_report,
                                           project)
        except JobCancelled:
            self.status.setText("Report cancelled.")
            return
        except StudioError as error:
            self.status.setText(str(error))
            return
        finally:
            self._building = False
        self.status.setText("")
        if project is self.workspace.project:
            self.show_report(report)
        if self._again:
            self._again = False
            self.refresh()

    def show_report(self, report: QualityReport) -> None:
        self.report = report
        headings, rows = table_rows(self.report)
        for r, dataset in enumerate(self.report.rows):  # percent over interval: narrow columns
            rows[r][1 : 1 + len(self.report.columns)] = [
                cell_text(self.report.rows[dataset][c], "\n") for c in self.report.columns
            ]
        _fill(self.table, headings, rows)
        columns = self.report.columns
        indicator_rows = [
            [INDICATOR_NAMES[name], *(rho_text(per.get(c)) for c in columns)]
            for name, per in self.report.correlations.items()
        ]
        _fill(self.indicators, ["Indicator", *(HEADINGS[c] for c in columns)], indicator_rows)
        self.notes.setText("\n".join(self.report.notes))
        self._draw_chart()

    def _draw_chart(self) -> None:
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        from studio.quality.chart import draw

        if self.canvas is None:
            self.canvas = FigureCanvasQTAgg(Figure(figsize=(7, 2.8)))
            self.canvas.setMinimumHeight(200)
            self.chart_box.addWidget(self.canvas)
        draw(self.report, self.canvas.figure)
        self.canvas.draw()

    # -- exports ---------------------------------------------------------------------

    def export_csv(self, path: Path) -> None:
        write_text(path, to_csv(self._current()))

    def export_markdown(self, path: Path) -> None:
        write_text(path, to_markdown(self._current()))

    def export_png(self, path: Path) -> None:
        from studio.quality.chart import save_png

        save_png(self._current(), path)

    def _current(self) -> QualityReport:
        if self.report is None and self.workspace.project is not None:
            self.show_report(build_report(self.workspace.project, no_embedder_reason=NO_EMBEDDER))
        assert self.report is not None
        return self.report

    def _ask(self, title: str, pattern: str, suffix: str) -> Path | None:
        name = save_file(self, self.workspace.settings, title, f"quality{suffix}", pattern)
        return Path(name) if name else None

    def _ask_csv(self) -> None:
        if path := self._ask("Export the table as CSV", "CSV (*.csv)", ".csv"):
            self.export_csv(path)

    def _ask_md(self) -> None:
        if path := self._ask("Export the report as Markdown", "Markdown (*.md)", ".md"):
            self.export_markdown(path)

    def _ask_png(self) -> None:
        if path := self._ask("Export the chart as PNG", "PNG (*.png)", ".png"):
            self.export_png(path)


def _fill(table: QTableWidget, headings: list[str], rows: list[list[str]]) -> None:
    table.clear()
    table.setColumnCount(len(headings))
    table.setRowCount(len(rows))
    table.setHorizontalHeaderLabels(headings)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    table.resizeColumnsToContents()
    table.resizeRowsToContents()
