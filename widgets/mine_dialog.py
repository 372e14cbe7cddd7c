"""Asks how to mine pairs: method, how many, and optionally one category or split."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
)

ANY = "(all)"


class MineDialog(QDialog):
    def __init__(
        self, categories: list[str], splits: list[str], embedding: bool, parent=None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Mine pairs")
        self.method = QComboBox()
        self.method.addItem("TF-IDF of product titles (Fashion IQ)", "tfidf")
        self.method.addItem("Embedding nearest neighbours", "embedding")
        if not embedding:
            self.method.model().item(1).setEnabled(False)
            self.method.setItemData(
                1, "Needs the index service, not in this build", Qt.ItemDataRole.ToolTipRole
            )
        self.count = QSpinBox()
        self.count.setRange(1, 1_000_000)
        self.count.setValue(500)
        self.category = QComboBox()
        self.category.addItems([ANY, *[c for c in categories if c]])
        self.split = QComboBox()
        self.split.addItems([ANY, *[s for s in splits if s]])
        form = QFormLayout(self)
        form.addRow(
            QLabel(
                "Each target image gets the reference of the same category and "
                "split that fits best; the score is kept with the pair."
            )
        )
        form.addRow("Method", self.method)
        form.addRow("New pairs", self.count)
        form.addRow("Category", self.category)
        form.addRow("Split", self.split)
        self.mirrored = QCheckBox("Also mirrored pairs (B→A when A→B exists)")
        self.mirrored.setToolTip("Off: two look-alike images are paired once, not both ways")
        form.addRow("", self.mirrored)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, object]:
        def chosen(box: QComboBox) -> str | None:
            return None if box.currentText() == ANY else box.currentText()

        return {
            "method": self.method.currentData(),
            "count": self.count.value(),
            "category": chosen(self.category),
            "split": chosen(self.split),
            "mirrored": self.mirrored.isChecked(),
        }
