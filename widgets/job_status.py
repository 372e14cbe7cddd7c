"""The status-bar strip that shows the running job with a progress bar and Cancel.

The bar shows the percentage only: some styles draw a bar's text beside it in room for
"100%", which cut "00:01 left" to "…eft". The time left is a label of its own, and the
job's message (a path, often) is elided with the whole of it in the tooltip.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from studio.jobs import ProgressTracker, format_eta
from widgets.elided_label import ElidedLabel
from widgets.job_runner import JobRunner


class JobStatus(QWidget):
    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._job_id: int | None = None
        self._tracker = ProgressTracker()
        self.label = ElidedLabel("")
        self.bar = QProgressBar()
        self.bar.setFixedWidth(180)
        self.bar.setTextVisible(True)
        self.bar.setFormat("%p%")
        self.eta = QLabel("")  # "00:01 left": never squeezed by the status bar
        self.eta.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job after its current batch (Esc)")
        self.cancel_button.clicked.connect(self._cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.eta, self.cancel_button):
            layout.addWidget(widget)
        runner.started.connect(self._on_started)
        runner.progressed.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        self.setVisible(False)

    def _on_started(self, job_id: int, label: str) -> None:
        self._job_id = job_id
        self._tracker = ProgressTracker()
        self.label.setText(label)
        self.bar.setRange(0, 0)
        self.eta.clear()
        self.eta.hide()
        self.setVisible(True)

    def _on_progress(self, job_id: int, done: int, total: int, message: str) -> None:
        if job_id != self._job_id:
            return
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            eta = format_eta(self._tracker.eta_seconds(done, total))
            self.eta.setText(f"{eta} left")
            self.eta.show()
        self.label.setText(f"{self._label_base()}  {message}".strip())

    def _label_base(self) -> str:
        handle = self.runner.running.get(self._job_id or -1)
        return handle.label if handle else ""

    def _on_finished(self, job_id: int, outcome: str) -> None:
        if job_id == self._job_id:
            self._job_id = None
            self.setVisible(bool(self.runner.running))

    def _cancel(self) -> None:
        if self._job_id is not None:
            self.runner.cancel(self._job_id)
            self.label.setText("Cancelling…")
