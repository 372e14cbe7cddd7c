"""Draw (or top up) a blind rating sample: share, raters, raters per item, seed."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from studio.errors import StudioError
from studio.quality.sampling import SampleOptions, SampleSummary, create_sample
from studio.store import Project


class SampleDialog(QDialog):
    def __init__(self, project: Project, actor: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project, self.actor = project, actor
        self.summary: SampleSummary | None = None
        self.setWindowTitle("New rating sample")
        form = QFormLayout(self)
        self.name = QLineEdit("main")
        self.share = QDoubleSpinBox()
        self.share.setRange(0.01, 1.0)
        self.share.setSingleStep(0.05)
        self.share.setValue(0.2)
        self.raters = QLineEdit()
        self.raters.setPlaceholderText("comma-separated names, e.g. Ana, Ben")
        self.per_item = QSpinBox()
        self.per_item.setRange(1, 20)
        self.per_item.setValue(2)
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        form.addRow("Sample name", self.name)
        form.addRow("Share of each dataset", self.share)
        form.addRow("Raters", self.raters)
        form.addRow("Raters per item", self.per_item)
        form.addRow("Seed", self.seed)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b91c1c;")
        form.addRow(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        try:
            options = SampleOptions(
                raters=tuple(self.raters.text().split(",")), name=self.name.text().strip(),
                share=self.share.value(), per_item=self.per_item.value(), seed=self.seed.value())
            self.summary = create_sample(self.project, options, self.actor)
        except StudioError as error:
            self.error.setText(str(error))
            return
        super().accept()
