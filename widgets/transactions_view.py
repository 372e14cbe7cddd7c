"""The Transactions tab: what datasets the project holds, import, drafting and sampling.

This tab names datasets, so it is for whoever runs the study; raters work in the Rate
tab, which never does.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError, ValidationError
from studio.importers.validation import for_the_window
from studio.transactions.importer import ImportReport, import_transactions
from studio.transactions.store import dataset_counts
from studio.wording import count
from studio.workspace import Workspace

EMPTY = ("No transactions yet: import a FashionMT or multi-turn Fashion IQ file, or draft "
         "some from the catalog.")


class TransactionsView(QWidget):
    changed = Signal()  # transactions or samples changed

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        layout = QVBoxLayout(self)
        buttons = QHBoxLayout()
        for text, slot in (("Import file…", self._ask_import),
                           ("Draft transactions…", self.open_builder),
                           ("New rating sample…", self.open_sample_dialog)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout.addWidget(self.table, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

    def refresh(self) -> None:
        project = self.workspace.project
        if project is None:
            return
        counts = dataset_counts(project)
        self.table.clear()
        self.table.setColumnCount(4)
        self.table.setHorizontalHeaderLabels(["Dataset", "Transactions", "Turns", "Draft turns"])
        self.table.setRowCount(len(counts))
        for r, (dataset, c) in enumerate(counts.items()):
            for col, value in enumerate((dataset, c.transactions, c.turns, c.draft_turns)):
                self.table.setItem(r, col, QTableWidgetItem(str(value)))
        self.table.resizeColumnsToContents()
        if not counts:
            self.status.setText(EMPTY)
        elif self.status.text() == EMPTY:
            self.status.setText("")

    def import_file(self, path: Path, skip_invalid: bool = False) -> ImportReport:
        project = self.workspace.project
        if project is None:
            raise StudioError("Open a project first.")
        report = import_transactions(project, path, skip_invalid=skip_invalid,
                                     actor=self.workspace.user_name)
        self.status.setText(f"Imported {count(report.added, 'transaction')} into {report.dataset!r} "
                            f"({report.already_present} already present, "
                            f"{len(report.skipped)} skipped).")
        self.refresh()
        self.changed.emit()
        return report

    def _ask_import(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Import transactions", "",
                                              "JSON (*.json);;All files (*)")
        if not name:
            return
        try:
            self.import_file(Path(name))
        except ValidationError as error:
            text = for_the_window(str(error), "you can import the valid ones and skip these")
            answer = QMessageBox.question(
                self, "Some entries are bad",
                f"{text}\n\nImport the valid entries and skip the bad ones?")
            if answer == QMessageBox.StandardButton.Yes:
                self._try(lambda: self.import_file(Path(name), skip_invalid=True))
        except StudioError as error:
            QMessageBox.warning(self, "Cannot import", str(error))

    def _try(self, action) -> None:
        try:
            action()
        except StudioError as error:
            QMessageBox.warning(self, "Cannot import", str(error))

    def open_builder(self) -> None:
        from widgets.transaction_builder_dialog import TransactionBuilderDialog

        if self.workspace.project is None:
            return
        TransactionBuilderDialog(self.workspace.project, self.workspace.user_name, self).exec()
        self.refresh()
        self.changed.emit()

    def open_sample_dialog(self) -> None:
        from widgets.sample_dialog import SampleDialog

        if self.workspace.project is None:
            return
        dialog = SampleDialog(self.workspace.project, self.workspace.user_name, self)
        if dialog.exec() and dialog.summary is not None:
            s = dialog.summary
            self.status.setText(f"Sample {s.name!r}: {s.added_items} new items, "
                                f"{s.added_assignments} new assignments.")
            self.changed.emit()
