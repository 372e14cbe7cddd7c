"""Draft transactions from the catalog and accept or edit each drafted turn.

Left: the drafts still waiting (and a form to draft more). Right: the chosen
transaction's images in order and one editable text per turn. Accept (Ctrl+Return)
saves the texts as accepted turns, one audited change per turn, and moves on.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.quality.ratings import ImageView
from studio.store import Project
from studio.transactions.builder import BuildOptions, build_and_save
from studio.transactions.records import Transaction
from studio.transactions.store import edit_turn, iter_transactions
from widgets import actions
from widgets.turn_strip import ImageTile

ALL_CATEGORIES = "(each category in turn)"


class TransactionBuilderDialog(QDialog):
    def __init__(self, project: Project, actor: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._keys = actions.KeyMap({"quality.draft.accept": self.accept_current})
        self.project, self.actor = project, actor
        self.setWindowTitle("Draft transactions")
        self.resize(1100, 640)
        self.drafts: list[Transaction] = []
        layout = QHBoxLayout(self)
        left = QVBoxLayout()
        form = QFormLayout()
        self.count = _spin(1, 1000, 10)
        self.turns = _spin(1, 10, 3)
        self.seed = _spin(0, 1_000_000, 0)
        self.category = QComboBox()
        self.category.addItems([ALL_CATEGORIES, *project.categories()])
        self.retrospective = QDoubleSpinBox()
        self.retrospective.setRange(0.0, 1.0)
        self.retrospective.setSingleStep(0.1)
        self.retrospective.setValue(0.5)
        self.retrospective.setToolTip("Share of turns from turn 3 on drafted as a rollback or "
                                      "a combination")
        for label, widget in (("Transactions", self.count), ("Turns", self.turns),
                              ("Category", self.category), ("Seed", self.seed),
                              ("Retrospective share", self.retrospective)):
            form.addRow(label, widget)
        left.addLayout(form)
        draft = QPushButton("Draft")
        draft.setAutoDefault(False)  # Return in a text field must not draft more
        draft.clicked.connect(self.draft)
        left.addWidget(draft)
        left.addWidget(QLabel("Waiting for review"))
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._show)
        left.addWidget(self.list, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        left.addWidget(self.status)
        layout.addLayout(left, 1)
        right = QVBoxLayout()
        self.images_box = QHBoxLayout()
        right.addLayout(self.images_box)
        self.texts = QGridLayout()
        right.addLayout(self.texts)
        right.addStretch(1)
        self.accept_button = QPushButton(actions.tooltip("quality.draft.accept", "Accept"))
        self.accept_button.setAutoDefault(False)
        self.accept_button.clicked.connect(self.accept_current)
        self.close_button = QPushButton("Close")
        self.close_button.setAutoDefault(False)
        self.close_button.setToolTip("Close; accepted turns are saved, drafts wait for later (Esc)")
        self.close_button.clicked.connect(self.reject)
        button_row = QHBoxLayout()
        button_row.addStretch(1)
        button_row.addWidget(self.close_button)
        button_row.addWidget(self.accept_button)
        right.addLayout(button_row)
        layout.addLayout(right, 3)
        self.editors: list[QLineEdit] = []
        self.reload()

    def reload(self) -> None:
        """List the built transactions that still have draft turns."""
        self.drafts = [t for t in iter_transactions(self.project, origin="built")
                       if any(turn.status == "draft" for turn in t.turns)]
        self.list.clear()
        self.list.addItems([f"{t.category} · {t.external_key}" for t in self.drafts])
        self.accept_button.setEnabled(bool(self.drafts))
        if self.drafts:
            self.list.setCurrentRow(0)
        else:
            self._clear()

    def draft(self) -> None:
        category = self.category.currentText()
        try:
            options = BuildOptions(
                count=self.count.value(), turns=self.turns.value(), seed=self.seed.value(),
                category=None if category == ALL_CATEGORIES else category,
                retrospective_share=self.retrospective.value())
            result, ids = build_and_save(self.project, options, self.actor)
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.status.setText(f"Drafted {len(ids)} new transactions from {result.attribute_source}."
                            + "".join(f"\n{note}" for note in result.notes))
        self.reload()

    def _clear(self) -> None:
        for box in (self.images_box, self.texts):
            while box.count():
                widget = box.takeAt(0).widget()
                if widget is not None:
                    widget.deleteLater()
        self.editors = []

    def _show(self, row: int) -> None:
        self._clear()
        if not 0 <= row < len(self.drafts):
            return
        transaction = self.drafts[row]
        for position, image_id in enumerate(transaction.image_ids):
            image = self.project.image(image_id)
            path = (self.project.image_file(image) if image else None) or self.project.image_root
            label = "Reference" if position == 0 else f"Target {position}"
            self.images_box.addWidget(ImageTile(ImageView(image_id, path), 150, label))
        for turn in transaction.turns:
            source = "reference" if turn.reference_position == 0 else \
                f"target {turn.reference_position}"
            self.texts.addWidget(QLabel(f"Turn {turn.index} (from {source})"), turn.index, 0)
            editor = QLineEdit(turn.text)
            self.texts.addWidget(editor, turn.index, 1)
            self.editors.append(editor)
        if self.editors:
            self.editors[0].setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        """Ctrl+Return accepts, wherever the focus is (text fields pass it up)."""
        if not self._keys.handle(event):
            super().keyPressEvent(event)

    def accept_current(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.drafts):
            return
        transaction = self.drafts[row]
        try:
            for turn, editor in zip(transaction.turns, self.editors, strict=True):
                edit_turn(self.project, int(transaction.id or 0), turn.index, editor.text(),
                          self.actor, "accepted")
        except StudioError as error:
            self.status.setText(str(error))
            return
        self.status.setText(f"Accepted {transaction.external_key}.")
        self.reload()
        self.list.setCurrentRow(min(row, len(self.drafts) - 1))


def _spin(low: int, high: int, value: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    return spin
