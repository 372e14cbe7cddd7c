"""Experiments: run simulated-user evaluations as jobs and compare stored runs in plots."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.sessions.strategies import STRATEGIES
from studio.simulation.outputs import list_runs, plot_runs, store_run, write_csv
from studio.simulation.runner import SIMULATORS, RunConfig
from studio.workspace import Workspace
from widgets.job_runner import JobRunner

RUN_ROLE = Qt.ItemDataRole.UserRole


class ExperimentsView(QWidget):
    def __init__(self, workspace: Workspace, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.runner = runner
        self.canvas = None
        layout = QVBoxLayout(self)
        form = QHBoxLayout()
        self.strategy = QComboBox()
        self.strategy.addItems(list(STRATEGIES))
        self.simulator = QComboBox()
        self.simulator.addItems(list(SIMULATORS))
        self.dialogs = QSpinBox()
        self.dialogs.setRange(1, 5000)
        self.dialogs.setValue(100)
        self.turns = QSpinBox()
        self.turns.setRange(1, 20)
        self.turns.setValue(5)
        self.run_button = QPushButton("Run simulation")
        self.run_button.setToolTip("N dialogs × T turns with a simulated user, as a job; the "
                                   "same seeded dialogs for every strategy")
        self.run_button.clicked.connect(self.run)
        for label, widget in (("Strategy", self.strategy), ("User", self.simulator),
                              ("Dialogs", self.dialogs), ("Turns", self.turns)):
            form.addWidget(QLabel(label))
            form.addWidget(widget)
        form.addWidget(self.run_button)
        form.addStretch(1)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.clicked.connect(self.export_csv)
        form.addWidget(self.export_button)
        layout.addLayout(form)
        splitter = QSplitter()
        self.runs = QListWidget()
        self.runs.setToolTip("Tick runs to compare them in the plots")
        self.runs.itemChanged.connect(lambda _item: self.draw())
        splitter.addWidget(self.runs)
        self.plot_area = QVBoxLayout()
        plot_holder = QWidget()
        plot_holder.setLayout(self.plot_area)
        self.note = QLabel("No runs yet: choose a strategy and a simulated user, then "
                           "Run simulation (the project needs an index and attributes).")
        self.note.setWordWrap(True)
        self.plot_area.addWidget(self.note)
        splitter.addWidget(plot_holder)
        splitter.setSizes([260, 800])
        layout.addWidget(splitter, 1)
        workspace.project_changed.connect(lambda _p: self.refresh())

    def refresh(self) -> None:
        self.runs.blockSignals(True)
        self.runs.clear()
        project = self.workspace.project
        # Simulated runs and ChatIR protocol runs (one per questioner) side by side.
        runs = [] if project is None else sorted(
            list_runs(project, "simulate") + list_runs(project, "chatir"),
            key=lambda run: run["id"])
        for run in runs:
            summary = run["summary"]
            item = QListWidgetItem(f"#{run['id']} {summary['label']} · {summary['queries']} "
                                   f"dialogs")
            item.setData(RUN_ROLE, summary)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.runs.addItem(item)
        self.runs.blockSignals(False)
        self.draw()

    def selected(self) -> list[dict]:
        return [self.runs.item(row).data(RUN_ROLE) for row in range(self.runs.count())
                if self.runs.item(row).checkState() == Qt.CheckState.Checked]

    def draw(self) -> None:
        summaries = self.selected()
        self.note.setVisible(not summaries)
        if not summaries:
            if self.canvas is not None:
                self.canvas.hide()
            return
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        if self.canvas is None:
            self.canvas = FigureCanvasQTAgg(Figure(figsize=(9, 3.6), layout="constrained"))
            self.plot_area.addWidget(self.canvas, 1)
        plot_runs(summaries, self.canvas.figure)
        self.canvas.draw()
        self.canvas.show()

    @asyncSlot()
    async def run(self) -> None:
        from studio.sessions.setup import load_session_context
        from studio.simulation.runner import run_simulation

        project = self.workspace.project
        if project is None:
            return
        settings = self.workspace.settings
        device = None if settings.device == "auto" else settings.device
        config = RunConfig(strategy=self.strategy.currentText(),
                           simulator=self.simulator.currentText(), n=self.dialogs.value(),
                           turns=self.turns.value(), model=settings.model)

        def job(*, progress, cancel):
            context = load_session_context(project, settings.model, device, cancel=cancel)
            return run_simulation(context, config, progress=progress, cancel=cancel)

        try:
            result = await self.runner.run(f"Simulating {config.label}", job)
        except JobCancelled:
            return
        except StudioError as error:
            self.note.setText(str(error))
            self.note.show()
            return
        store_run(project, "simulate", result.summary(), result.queries,
                  self.workspace.user_name)
        self.refresh()

    def export_csv(self) -> None:
        summaries = self.selected()
        if not summaries:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export runs", "runs.csv", "CSV (*.csv)")
        if path:
            write_csv(Path(path), summaries)
