"""File → Team → Assign work…: hand captions, reviews, attribute batches or ratings out."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
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
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.team import assignments

KINDS = {
    "Captions to write": "captions",
    "Captions to review": "reviews",
    "Attribute labels to decide": "attributes",
    "Turns to rate (blind sample)": "ratings",
}


class TeamAssignDialog(QDialog):
    def __init__(self, project: Project, actor: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project, self.actor = project, actor
        self.given: dict[str, int] | None = None
        self.setWindowTitle("Assign work")
        self.setMinimumWidth(420)
        form = QFormLayout(self)
        self.kind = QComboBox()
        self.kind.addItems(list(KINDS))
        self.kind.setToolTip("Assigning again adds only what is still missing")
        self.people = QLineEdit()
        self.people.setPlaceholderText("comma-separated names, e.g. Ana, Ben")
        self.category = QComboBox()
        self.category.addItem("All categories", None)
        for category in project.categories():
            if category:
                self.category.addItem(category, category)
        self.attribute = QLineEdit()
        self.attribute.setPlaceholderText("attribute batches: one attribute, or leave empty")
        self.per_pair = QSpinBox()
        self.per_pair.setRange(1, 10)
        self.per_pair.setToolTip("Reviewers per pair, or raters per rated turn")
        self.share = QDoubleSpinBox()
        self.share.setRange(0.01, 1.0)
        self.share.setSingleStep(0.05)
        self.share.setValue(0.2)
        self.share.setToolTip("Ratings: share of each dataset's turns")
        form.addRow("Work", self.kind)
        form.addRow("People", self.people)
        form.addRow("Category", self.category)
        form.addRow("Attribute", self.attribute)
        form.addRow("People per item", self.per_pair)
        form.addRow("Share (ratings)", self.share)
        self.note = QLabel(
            "Caption queues keep the project's rule: N captions per pair, "
            "each from a different person."
        )
        self.note.setWordWrap(True)
        form.addRow(self.note)
        self.error = QLabel()
        self.error.setObjectName("errorText")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b91c1c;")
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Assign")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def what(self) -> str:
        return KINDS[self.kind.currentText()]

    def accept(self) -> None:
        names = [n.strip() for n in self.people.text().split(",") if n.strip()]
        category = self.category.currentData()
        try:
            what = self.what()
            if what == "captions":
                self.given = assignments.assign_captions(self.project, names, self.actor, category)
            elif what == "reviews":
                self.given = assignments.assign_reviews(
                    self.project, names, self.actor, category, self.per_pair.value()
                )
            elif what == "attributes":
                self.given = assignments.assign_attributes(
                    self.project, names, self.actor, category, self.attribute.text().strip() or None
                )
            else:
                summary = create_sample(
                    self.project,
                    SampleOptions(
                        raters=tuple(names),
                        share=self.share.value(),
                        per_item=self.per_pair.value(),
                    ),
                    self.actor,
                )
                self.given = summary.per_rater
        except StudioError as error:
            self.error.setText(str(error))
            return
        super().accept()

    def summary(self) -> str:
        given = self.given or {}
        return "Assigned " + ", ".join(f"{n} to {name}" for name, n in given.items())
