"""Edit the attribute vocabulary: add, rename, merge, retype, synonyms, import, export.

Each button is one audited change (``studio.attributes.vocabulary``). Problems (a name
already used, a synonym spelled like another attribute's, a bad file) are shown in the
dialog in the words the core wrote, naming the file and entry for imports.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.attributes import vocabulary as vocab
from studio.attributes.records import ATTRIBUTE_TYPES
from studio.attributes.vocabulary_io import (
    export_vocabulary,
    import_vocabulary,
    starter_vocabulary,
)
from studio.errors import StudioError
from studio.workspace import Workspace

FILE_FILTER = "Vocabulary (*.json *.csv);;JSON (*.json);;CSV (*.csv)"


class VocabularyDialog(QDialog):
    vocabulary_changed = Signal()

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.setWindowTitle("Attribute vocabulary")
        self.resize(720, 560)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by name, type or synonym")
        self.filter.textChanged.connect(self._apply_filter)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Name", "Type", "Synonyms"])
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.message = QLabel()
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        for text, slot in (
            ("Add…", self._ask_add), ("Rename…", self._ask_rename),
            ("Change type…", self._ask_retype), ("Synonyms…", self._ask_synonyms),
            ("Merge into…", self._ask_merge), ("Remove", self._ask_remove),
            ("Import…", self._ask_import), ("Export…", self._ask_export),
            ("Add starter words", self.add_starter),
        ):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.reload()

    # -- view ------------------------------------------------------------------------

    def reload(self) -> None:
        project = self.workspace.project
        entries = vocab.load_vocabulary(project) if project else []
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            for column, text in enumerate((entry.name, entry.type, ", ".join(entry.synonyms))):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, entry.name)
                self.table.setItem(row, column, item)
        self._apply_filter(self.filter.text())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.table.rowCount()):
            cells = [self.table.item(row, c).text().lower() for c in range(3)]
            self.table.setRowHidden(row, bool(needle) and not any(needle in c for c in cells))

    def selected_names(self) -> list[str]:
        rows = sorted({index.row() for index in self.table.selectedIndexes()})
        return [self.table.item(row, 0).text() for row in rows]

    def _run(self, done: str, action, *args) -> bool:
        """Apply one edit; show the outcome or the problem in the dialog."""
        project = self.workspace.project
        if project is None:
            return False
        try:
            action(project, self.workspace.user_name, *args)
        except StudioError as error:
            self.message.setStyleSheet("color: #b91c1c;")
            self.message.setText(str(error))
            return False
        self.message.setStyleSheet("color: #065f46;")
        self.message.setText(done)
        self.reload()
        self.vocabulary_changed.emit()
        return True

    # -- edits (callable directly, and from the buttons) -----------------------------

    def add(self, name: str, type_: str, synonyms: list[str]) -> bool:
        return self._run(f"Added {name!r}.", vocab.add_attribute, name, type_, synonyms)

    def rename(self, name: str, new_name: str) -> bool:
        return self._run(f"Renamed {name!r} to {new_name!r}.", vocab.rename_attribute,
                         name, new_name)

    def retype(self, name: str, type_: str) -> bool:
        return self._run(f"{name!r} is now a {type_} attribute.", vocab.retype_attribute,
                         name, type_)

    def set_synonyms(self, name: str, synonyms: list[str]) -> bool:
        return self._run(f"Updated the synonyms of {name!r}.", vocab.set_synonyms, name, synonyms)

    def merge(self, sources: list[str], into: str) -> bool:
        return self._run(f"Merged {', '.join(sources)} into {into!r}.", vocab.merge_attributes,
                         sources, into)

    def remove(self, name: str) -> bool:
        return self._run(f"Removed {name!r}.", vocab.remove_attribute, name)

    def import_file(self, path: Path) -> bool:
        return self._run(f"Imported {path}.", import_vocabulary, path)

    def add_starter(self) -> bool:
        """Merge the shipped starter vocabulary (373 fashion attributes) into the project's."""
        return self._run("Added the starter vocabulary.", _store_starter)

    def export_file(self, path: Path) -> bool:
        project = self.workspace.project
        if project is None:
            return False
        try:
            count = export_vocabulary(project, path)
        except StudioError as error:
            self.message.setText(str(error))
            return False
        self.message.setText(f"Wrote {count} attributes to {path}.")
        return True

    # -- prompts ---------------------------------------------------------------------

    def _ask_add(self) -> None:
        name, ok = QInputDialog.getText(self, "Add attribute", "Name:")
        if not ok or not name.strip():
            return
        type_, ok = QInputDialog.getItem(self, "Add attribute", "Type:", list(ATTRIBUTE_TYPES),
                                         0, False)
        if not ok:
            return
        synonyms, ok = QInputDialog.getText(self, "Add attribute", "Synonyms (comma separated):")
        if ok:
            self.add(name, type_, _split(synonyms))

    def _ask_rename(self) -> None:
        names = self.selected_names()
        if len(names) == 1:
            new, ok = QInputDialog.getText(self, "Rename", f"New name for {names[0]!r}:",
                                           text=names[0])
            if ok:
                self.rename(names[0], new)

    def _ask_retype(self) -> None:
        for name in self.selected_names()[:1]:
            type_, ok = QInputDialog.getItem(self, "Change type", f"Type of {name!r}:",
                                             list(ATTRIBUTE_TYPES), 0, False)
            if ok:
                self.retype(name, type_)

    def _ask_synonyms(self) -> None:
        project = self.workspace.project
        for name in self.selected_names()[:1]:
            entry = vocab.get_entry(project, name) if project else None
            current = ", ".join(entry.synonyms) if entry else ""
            text, ok = QInputDialog.getText(self, "Synonyms", f"Synonyms of {name!r}:",
                                            text=current)
            if ok:
                self.set_synonyms(name, _split(text))

    def _ask_merge(self) -> None:
        names = self.selected_names()
        if len(names) < 2:
            self.message.setText("Select two or more attributes to merge.")
            return
        into, ok = QInputDialog.getItem(self, "Merge", "Keep which name?", names, 0, False)
        if ok:
            self.merge([n for n in names if n != into], into)

    def _ask_remove(self) -> None:
        names = self.selected_names()
        if not names:
            return
        answer = QMessageBox.question(
            self, "Remove attributes",
            f"Remove {', '.join(names)} and every label of {'it' if len(names) == 1 else 'them'}?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            for name in names:
                self.remove(name)

    def _ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import vocabulary", "", FILE_FILTER)
        if path:
            self.import_file(Path(path))

    def _ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export vocabulary", "vocabulary.json",
                                              FILE_FILTER)
        if path:
            self.export_file(Path(path))


def _store_starter(project, actor: str) -> None:
    vocab.store_entries(project, actor, starter_vocabulary(), origin="starter vocabulary")


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]
