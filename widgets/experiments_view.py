"""Experiments: run simulated-user evaluations as jobs and compare stored runs in plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from studio.errors import StudioError
from studio.experiments.query_log import QueryLog
from studio.jobs import JobCancelled
from studio.sessions.strategies import STRATEGIES
from studio.simulation.outputs import list_runs, plot_runs, store_run, write_csv
from studio.simulation.run_list import (
    PER_TURN_HEADINGS,
    dialog_shortfall,
    per_turn_rows,
    run_line,
    run_lines,
)
from studio.simulation.runner import SIMULATORS, RunConfig
from studio.training.combiner import combiner_strategies
from studio.workspace import Workspace
from widgets.combiner_training_dialog import CombinerTrainingDialog
from widgets.elided_label import WrappedLabel
from widgets.file_dialogs import save_file
from widgets.flow_layout import FlowLayout
from widgets.job_runner import JobRunner
from widgets.project_signals import follow

if TYPE_CHECKING:
    from widgets.query_browser import QueryBrowser

RUN_ROLE = Qt.ItemDataRole.UserRole

STYLES_IN_ORDER = ("learned", "realistic", "catalog")  # the default first
SAMPLE_DIALOGS = 2


def sample_dialogs_text(texts: list[list[str]]) -> str:
    """The first dialogs of a run as the simulated people typed them, turn by turn."""
    lines = []
    for number, turns in enumerate(texts[:SAMPLE_DIALOGS], start=1):
        said = " → ".join(f"“{t}”" for t in turns if t)
        if said:
            lines.append(f"Dialog {number}: {said}")
    return "\n".join(lines)


STORED_RUN_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_DIALOGS = 5000
RUN_TIP = ("N dialogs × T turns with a simulated user, as a job; the same seeded dialogs for "
           "every strategy")
TRAIN_TIP = ("Train a composition model (Combiner) on this project's captions; it becomes the "
             "strategy combiner:NAME")


class ExperimentsView(QWidget):
    #: a stored query to go on with by hand in Retrieval → Search (see QueryBrowser)
    open_in_retrieval = Signal(object)
    def __init__(self, workspace: Workspace, runner: JobRunner, parent: QWidget | None = None,
                 services: Any = None):
        super().__init__(parent)
        self.workspace = workspace
        self.runner = runner
        self.services = services  # the IO lane and thumbnails of the query list
        self.canvas = None
        layout = QVBoxLayout(self)
        form = FlowLayout()
        self.strategy = QComboBox()
        self.strategy.addItems(list(STRATEGIES))
        # Trained combiners arrive later (history+combiner:NAME): the box follows them.
        self.strategy.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.simulator = QComboBox()
        self.simulator.addItems(list(SIMULATORS))
        self.speech = QComboBox()
        self.speech.addItems(list(STYLES_IN_ORDER))
        self.speech.setToolTip(
            "How the simulated people speak: learned (annotators' own words, from the "
            "captioner learned on Fashion IQ's captions), realistic (hand-written templates "
            "with comparatives, negations and typos) or catalog (the catalog's own words)")
        self.dialogs = QSpinBox()
        self.dialogs.setRange(1, MAX_DIALOGS)
        self.dialogs.setValue(100)
        self.dialogs.setToolTip(
            f"How many dialogs (up to {MAX_DIALOGS:,}); each has its own target, so a run has "
            "at most as many dialogs as the split has targets with attributes (it says so)")
        self.turns = QSpinBox()
        self.turns.setRange(1, 20)
        self.turns.setValue(5)
        self.run_button = QPushButton("Run simulation")
        self.run_button.setToolTip(RUN_TIP)
        self.run_button.clicked.connect(self.run)
        for label, widget in (("Strategy", self.strategy), ("User", self.simulator),
                              ("Speech", self.speech), ("Dialogs", self.dialogs),
                              ("Turns", self.turns)):
            group = QWidget()  # a label with its box; the row wraps when the names are long
            group_layout = QHBoxLayout(group)
            group_layout.setContentsMargins(0, 0, 0, 0)
            group_layout.addWidget(QLabel(label))
            group_layout.addWidget(widget)
            form.addWidget(group)
        # The actions go on a row of their own so the view fits a 1024-pixel window.
        actions = QHBoxLayout()
        actions.addWidget(self.run_button)
        self.train_button = QPushButton("Train…")
        self.train_button.setToolTip(TRAIN_TIP)
        self.train_button.clicked.connect(self.open_training)
        actions.addWidget(self.train_button)
        actions.addStretch(1)
        self.queries_button = QPushButton("Queries…")
        self.queries_button.setToolTip("The chosen run query by query: ranks, misses, the "
                                       "top results; compare it with another run")
        self.queries_button.clicked.connect(lambda: self.open_queries())
        self.queries_button.setEnabled(services is not None)
        actions.addWidget(self.queries_button)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.clicked.connect(self.export_csv)
        actions.addWidget(self.export_button)
        layout.addLayout(form)
        layout.addLayout(actions)
        self.message = WrappedLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.sample_dialogs = WrappedLabel("")
        self.sample_dialogs.setWordWrap(True)
        self.sample_dialogs.setStyleSheet("color: #4b5563;")
        self.sample_dialogs.setToolTip("What the simulated people typed in the last run")
        layout.addWidget(self.sample_dialogs)
        splitter = QSplitter()
        self.runs = QListWidget()
        self.runs.setToolTip("Tick runs to compare them in the plots")
        self.runs.setSpacing(3)  # the runs apart: each is four lines
        self.runs.itemChanged.connect(lambda _item: self.draw())
        splitter.addWidget(self.runs)
        self.plot_area = QVBoxLayout()
        plot_holder = QWidget()
        plot_holder.setLayout(self.plot_area)
        self.note = QLabel("No runs yet: choose a strategy and a simulated user, then "
                           "Run simulation (the project needs an index and attributes).")
        self.note.setWordWrap(True)
        self.plot_area.addWidget(self.note)
        self.chart_area = QVBoxLayout()  # the plots, above their table
        self.plot_area.addLayout(self.chart_area, 3)
        self.table = QTableWidget(0, len(PER_TURN_HEADINGS))
        self.table.setHorizontalHeaderLabels(PER_TURN_HEADINGS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setToolTip("Every ticked run, turn by turn (Recall@K, cumulative Hits@10, "
                              "ranking percentile, mean target rank)")
        self.plot_area.addWidget(self.table, 2)
        splitter.addWidget(plot_holder)
        splitter.setSizes([360, 700])
        layout.addWidget(splitter, 1)
        workspace.project_changed.connect(self._project_changed)  # held weakly: ends with us
        follow(self, workspace, ("experiments",), self.refresh)

    def open_training(self) -> CombinerTrainingDialog | None:
        if self.workspace.project is None:
            return None
        dialog = CombinerTrainingDialog(self.workspace, self.runner, self)
        dialog.trained.connect(lambda _name: self.refresh_strategies())
        dialog.show()
        return dialog

    def refresh_strategies(self) -> None:
        """The built-in strategies plus the combiners trained for the settings' model."""
        current = self.strategy.currentText()
        self.strategy.clear()
        project = self.workspace.project
        trained = (combiner_strategies(project, self.workspace.settings.model)
                   if project is not None else [])
        self.strategy.addItems([*STRATEGIES, *trained])
        if current in [*STRATEGIES, *trained]:
            self.strategy.setCurrentText(current)

    def _project_changed(self, _project: object) -> None:
        self._enable_writes()
        self.refresh()

    def _enable_writes(self) -> None:
        """A run and a training both save into the project: not offered when it is read-only."""
        project = self.workspace.project
        reason = project.read_only_reason if project is not None else None
        for button, tip in ((self.run_button, RUN_TIP), (self.train_button, TRAIN_TIP)):
            button.setEnabled(reason is None)
            button.setToolTip(tip if reason is None else
                              f"The project is read-only ({reason}): nothing can be saved in it")

    def refresh(self) -> None:
        self.refresh_strategies()
        self.runs.blockSignals(True)
        self.runs.clear()
        project = self.workspace.project
        # Simulated runs and ChatIR protocol runs (one per questioner) side by side.
        runs = [] if project is None else sorted(
            list_runs(project, "simulate") + list_runs(project, "chatir"),
            key=lambda run: run["id"])
        for run in runs:
            summary = run["summary"]
            lines = run_lines(run)
            # One part a line: the list is about 270 px wide at 1024 x 700 (tick box included).
            item = QListWidgetItem("\n".join(lines))
            item.setToolTip(dialog_shortfall(summary) or run_line(run))
            item.setData(RUN_ROLE, summary)
            item.setData(STORED_RUN_ROLE, run)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.runs.addItem(item)
        self._add_evaluation_runs()
        self.runs.blockSignals(False)
        self.draw()

    def _add_evaluation_runs(self) -> None:
        """Fashion IQ, CIRR and CIRCO evaluations (single turn): listed with their figures
        (Recall@K, mAP@K), not plotted; each opens its queries like a simulation run."""
        from studio.experiments.evaluation_runs import KINDS, evaluation_lines

        project = self.workspace.project
        runs = [] if project is None else sorted(
            (run for kind in KINDS for run in list_runs(project, kind)),
            key=lambda run: run["id"])
        for run in runs:
            lines = evaluation_lines(run)
            item = QListWidgetItem(f"{lines[0]}\n{' · '.join(lines[1:3])}\n{lines[3]}")
            item.setToolTip(" · ".join(lines))
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            item.setData(STORED_RUN_ROLE, run)
            self.runs.addItem(item)

    def selected(self) -> list[dict]:
        return [self.runs.item(row).data(RUN_ROLE) for row in range(self.runs.count())
                if self.runs.item(row).checkState() == Qt.CheckState.Checked]

    def selected_runs(self) -> list[dict]:
        return [self.runs.item(row).data(STORED_RUN_ROLE) for row in range(self.runs.count())
                if self.runs.item(row).checkState() == Qt.CheckState.Checked]

    def _fill_table(self) -> None:
        rows = per_turn_rows(self.selected_runs())
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                item = QTableWidgetItem(value)
                if c > 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.setVisible(bool(rows))

    def draw(self) -> None:
        summaries = self.selected()
        self.note.setVisible(not summaries)
        self._fill_table()
        if not summaries:
            if self.canvas is not None:
                self.canvas.hide()
            return
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        if self.canvas is None:
            self.canvas = FigureCanvasQTAgg(Figure(figsize=(9, 3.6), layout="constrained"))
            self.chart_area.addWidget(self.canvas, 1)
        # Each run by its number: two runs of one strategy and user are told apart.
        labels = [f"#{run['id']} {run['summary'].get('label', '')}".strip()
                  for run in self.selected_runs()]
        plot_runs(summaries, self.canvas.figure, labels)
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
        device = settings.model_device
        config = RunConfig(strategy=self.strategy.currentText(),
                           simulator=self.simulator.currentText(), n=self.dialogs.value(),
                           turns=self.turns.value(), model=settings.model,
                           users=self.speech.currentText())

        def job(*, progress, cancel):
            context = load_session_context(project, settings.model, device, cancel=cancel)
            # The log is closed on cancel too: the file keeps the dialogs that finished.
            with QueryLog.for_project(project, "simulate",
                                      first_turn=0 if config.simulator == "chat" else 1) as log:
                # Cancel stops after the current dialog and keeps the ones finished.
                return run_simulation(context, config, progress=progress, cancel=cancel,
                                      log=log, keep_partial=True), log

        try:
            result, log = await self.runner.run(f"Simulating {config.label}", job)
        except JobCancelled:
            return
        except StudioError as error:
            self.message.setText(str(error))
            return
        summary = result.summary()
        try:
            store_run(project, "simulate", summary, result.queries, self.workspace.user_name,
                      log)
        except StudioError as error:  # a busy or read-only project
            self.message.setText(f"The run finished but was not stored: {error}")
            return
        self.message.setText(dialog_shortfall(summary) or
                             f"Ran {summary['queries']} dialogs of {config.label} in "
                             f"{summary['seconds']:.1f} s.")
        self.sample_dialogs.setText(sample_dialogs_text(result.texts))

    def open_queries(self) -> QueryBrowser | None:
        """The current run's queries (the run under the cursor in the list)."""
        from widgets.query_browser import QueryBrowser

        item = self.runs.currentItem() or (self.runs.item(0) if self.runs.count() else None)
        project = self.workspace.project
        if item is None or project is None or self.services is None:
            return None
        run = item.data(STORED_RUN_ROLE)
        runs = list_runs(project)
        browser = QueryBrowser(self.services, run, runs, self)
        browser.open_in_retrieval.connect(self.open_in_retrieval.emit)
        browser.show()
        return browser

    def export_csv(self) -> None:
        summaries = self.selected()
        if not summaries:
            return
        path = save_file(self, self.workspace.settings, "Export runs", "runs.csv", "CSV (*.csv)")
        if path:
            write_csv(Path(path), summaries)
