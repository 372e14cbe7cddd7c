"""Train a combiner from the Experiments tab: settings, progress, time left, cancel, and the
loss and validation Recall@10 drawn after every epoch.

The training is ``studio.training.combiner.train_project_combiner`` run as a job on the
window's runner (so the status bar shows it too). Its per-epoch reports arrive on the job's
thread and reach this dialog through a Qt signal, which Qt queues to the UI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot
from shiboken6 import isValid

from studio.errors import StudioError
from studio.jobs import CancelToken, JobCancelled, ProgressTracker, format_eta
from studio.workspace import Workspace
from widgets.job_runner import JobRunner

REDRAW_MS = 300


class CombinerTrainingDialog(QDialog):
    trained = Signal(str)  # the new combiner's strategy name

    def __init__(self, workspace: Workspace, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.runner = runner
        self.setWindowTitle("Train a combiner")
        self.setMinimumSize(640, 520)
        self.token: CancelToken | None = None
        self.tracker = ProgressTracker()
        self.epochs_seen: list = []
        self.canvas = None
        self._redraw_pending = False

        layout = QVBoxLayout(self)
        intro = QLabel(
            "A Combiner learns to compose the reference image and the modification text from "
            "this project's triplets: submitted and accepted captions of train-split pairs and "
            "accepted transaction turns (val-split pairs decide when to stop). Afterwards it "
            "is the strategy combiner:NAME in sessions and simulations."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.name = QLineEdit("combiner")
        self.name.setToolTip(
            "Letters, digits, '.', '_' or '-'; a combiner of that name is replaced"
        )
        self.epochs = QSpinBox()
        self.epochs.setRange(1, 500)
        self.epochs.setValue(40)
        self.epochs.setToolTip(
            "At most this many epochs; training stops earlier when the "
            "validation Recall@10 stops improving"
        )
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        self.seed.setToolTip("The same seed trains the same combiner on the CPU")
        self.drafted = QDoubleSpinBox()
        self.drafted.setRange(0.0, 1.0)
        self.drafted.setSingleStep(0.1)
        self.drafted.setToolTip(
            "Share of the training set drafted from images alone (pairs "
            "by embedding similarity, texts from attribute differences)"
        )
        self.stop_early = QCheckBox("Stop when validation Recall@10 stops improving")
        self.stop_early.setChecked(True)
        self.stop_early.setToolTip(
            "Early stopping: after 5 epochs without a better validation "
            "Recall@10; the best epoch's weights are kept either way"
        )
        form.addRow("Name", self.name)
        form.addRow("Most epochs", self.epochs)
        form.addRow("Seed", self.seed)
        form.addRow("Drafted share", self.drafted)
        form.addRow("", self.stop_early)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.time_left = QLabel("")
        row.addWidget(self.progress, 1)
        row.addWidget(self.time_left)
        layout.addLayout(row)
        self.status = QLabel("Press Train to start; it runs in the background.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.plot_holder = QVBoxLayout()
        layout.addLayout(self.plot_holder, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.train_button = QPushButton("Train")
        self.train_button.setDefault(True)
        self.train_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel training")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop after the current batch; nothing is saved")
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        for button in (self.train_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)
        layout.addLayout(buttons)

    @property
    def running(self) -> bool:
        return self.token is not None

    def cancel(self) -> None:
        if self.token is not None:
            self.token.cancel()
            self.status.setText("Cancelling …")

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        self.cancel()  # closing the dialog never leaves a training running unseen
        super().closeEvent(event)

    @asyncSlot()
    async def start(self) -> None:
        from studio.training.combiner import TrainingRequest, train_project_combiner

        project = self.workspace.project
        if project is None or self.running:
            return
        settings = self.workspace.settings
        request = TrainingRequest(
            name=self.name.text().strip(),
            model=settings.model,
            epochs=self.epochs.value(),
            seed=self.seed.value(),
            drafted=round(self.drafted.value(), 3),
            device=settings.model_device,
            patience=5 if self.stop_early.isChecked() else self.epochs.value(),
        )
        actor = self.workspace.user_name
        token = self.token = CancelToken()
        self.epochs_seen = []
        self.tracker = ProgressTracker()
        # The job's thread never touches Qt: its reports go to the UI thread through the
        # services' relay, and are dropped if the dialog was closed meanwhile.
        post = self.runner.post

        def on_ui(method, *args) -> None:
            post(lambda: method(*args) if isValid(self) else None)

        def job(*, progress, cancel):
            def report(done: int, total: int, message: str = "") -> None:
                progress(done, total, message)
                on_ui(self._show_progress, done, total, message)

            both = _Either(cancel, token)
            return train_project_combiner(
                project, request, progress=report, cancel=both,
                on_epoch=lambda row: on_ui(self._add_epoch, row), actor=actor,
            )

        self._set_running(True)
        self.status.setText(f"Training '{request.name}' …")
        try:
            summary = await self.runner.run(f"Training combiner {request.name}", job)
        except JobCancelled:
            self.status.setText("Training cancelled; nothing was saved.")
            return
        except StudioError as error:
            self.status.setText(str(error))
            return
        finally:
            self.token = None
            self._set_running(False)
        best, base = summary["best_val_recall_at_10"], summary["sum_val_recall_at_10"]
        counts = summary["train_triplets"]
        figures = (
            ""
            if best is None
            else f" Validation Recall@10 {best:.3f} at epoch {summary['best_epoch']} "
            f"(image + text sum: {base:.3f})."
        )
        total = sum(counts.values())
        warning = summary.get("warning", "")
        self.status.setText(
            f"Trained '{summary['name']}' on {total:,} {'triplet' if total == 1 else 'triplets'}"
            f" in {summary['total_seconds']:.0f} s.{figures} Use it as the strategy "
            f"combiner:{summary['name']}." + (f"\n⚠ {warning}" if warning else "")
        )
        self.status.setStyleSheet("color: #b45309;" if warning else "")
        self.progress.setValue(self.progress.maximum())
        self.time_left.setText("")
        self._draw()  # the final epochs, whatever the throttle left pending
        self.trained.emit(f"combiner:{summary['name']}")

    def _set_running(self, running: bool) -> None:
        self.train_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        for widget in (self.name, self.epochs, self.seed, self.drafted, self.stop_early):
            widget.setEnabled(not running)

    def _show_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(done, total))
        if message.startswith("epoch"):
            self.time_left.setText(f"{format_eta(self.tracker.eta_seconds(done, total))} left")
        self.progress.setFormat(f"{message}  %p%" if message else "%p%")

    def _add_epoch(self, row) -> None:
        if row.epoch == 0:
            self.tracker = ProgressTracker()  # the training steps start now
        self.epochs_seen.append(row)
        if not self._redraw_pending:  # short epochs: draw at most ~3 times a second
            self._redraw_pending = True
            QTimer.singleShot(REDRAW_MS, self._draw)

    def _draw(self) -> None:
        self._redraw_pending = False
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator

        if self.canvas is None:
            self.canvas = FigureCanvasQTAgg(Figure(figsize=(6, 2.6), layout="constrained"))
            self.canvas.setMinimumHeight(200)
            self.plot_holder.addWidget(self.canvas)
        figure = self.canvas.figure
        figure.clear()
        loss_axes, recall_axes = figure.add_subplot(1, 2, 1), figure.add_subplot(1, 2, 2)
        trained = [r for r in self.epochs_seen if r.loss is not None]
        loss_axes.plot([r.epoch for r in trained], [r.loss for r in trained], marker="o")
        loss_axes.set_title("Training loss", fontsize=10)
        loss_axes.set_xlabel("epoch", fontsize=8)
        scored = [r for r in self.epochs_seen if r.val_recall_at_10 is not None]
        recall_axes.plot(
            [r.epoch for r in scored],
            [r.val_recall_at_10 for r in scored],
            marker="o",
            color="#16a34a",
        )
        if scored:
            recall_axes.axhline(
                scored[0].val_recall_at_10,
                color="#9ca3af",
                linestyle="--",
                label="image + text sum",
            )
            recall_axes.legend(fontsize=8, loc="lower right")
        recall_axes.set_title("Validation Recall@10", fontsize=10)
        recall_axes.set_xlabel("epoch", fontsize=8)
        recall_axes.set_ylim(0, 1)
        # Whole epochs from 0 to the last one (at least 1): one point alone used to get
        # an axis from -0.04 to 0.04.
        last = max((r.epoch for r in self.epochs_seen), default=0)
        for axes in (loss_axes, recall_axes):
            axes.set_xlim(-0.3, max(last, 1) + 0.3)
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            axes.tick_params(labelsize=8)
        self.canvas.draw_idle()


class _Either:
    """Cancelled when either the status bar's token or the dialog's is."""

    def __init__(self, *tokens: CancelToken) -> None:
        self.tokens = tokens

    @property
    def cancelled(self) -> bool:
        return any(t.cancelled for t in self.tokens)

    def raise_if_cancelled(self) -> None:
        for token in self.tokens:
            token.raise_if_cancelled()
