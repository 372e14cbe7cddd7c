"""File → Team → Create work package…: whose work, where to write it, images or not."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from studio.store import Project
from studio.team.assignments import team_progress


class TeamPackDialog(QDialog):
    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Create work package")
        self.setMinimumWidth(460)
        form = QFormLayout(self)
        self.person = QComboBox()
        rows = team_progress(project)
        for row in rows:
            work = ", ".join(f"{n} {kind}" for kind, n in sorted(row.assigned.items()))
            self.person.addItem(f"{row.name}  ({work})", row.name)
        self.path = QLineEdit(str(project.path.parent))
        self.path.setToolTip("A .cirdb file, or a folder to write PROJECT-PERSON.cirdb in")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)
        self.with_images = QCheckBox("Copy the images the package needs beside it")
        self.with_images.setToolTip(
            "Otherwise the package finds them under this project's image root"
        )
        self.image_root = QLineEdit()
        self.image_root.setPlaceholderText(str(project.image_root))
        self.image_root.setToolTip(
            "Where their machine has the images (absolute, or relative to the package's "
            "folder); empty: this project's image root"
        )
        self.with_images.toggled.connect(lambda on: self.image_root.setEnabled(not on))
        form.addRow("Person", self.person)
        form.addRow("Write to", where)
        form.addRow(self.with_images)
        form.addRow("Images on their machine", self.image_root)
        note = QLabel(
            "The package holds this person's queues and nothing of others' hidden "
            "data: ratings stay blind. Open it in CIR Studio on their machine."
        )
        note.setWordWrap(True)
        form.addRow(note)
        if not rows:
            form.addRow(QLabel("Nobody has work yet: use File → Team → Assign work… first."))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Create")
        self.ok.setEnabled(bool(rows))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Work package", self.path.text(), "CIR Studio projects (*.cirdb)"
        )
        if path:
            self.path.setText(path)

    def choice(self) -> tuple[str, Path, bool, str | None]:
        root = None if self.with_images.isChecked() else self.image_root.text().strip() or None
        return (
            str(self.person.currentData()),
            Path(self.path.text()),
            self.with_images.isChecked(),
            root,
        )
