"""Help → Keyboard Shortcuts: every action of the key map (widgets/actions.py), grouped by
pane, with a filter that matches keys, descriptions and places."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets import actions

COLUMNS = ("Keys", "What it does", "Where")


class KeyboardShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.resize(760, 560)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter: a key (Ctrl+K), a word (skip), a pane")
        self.filter.setClearButtonEnabled(True)
        self.table = QTreeWidget()
        self.table.setColumnCount(len(COLUMNS))
        self.table.setHeaderLabels(COLUMNS)
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.header().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.groups: dict[str, QTreeWidgetItem] = {}
        for pane, keys, description, where in actions.rows():
            group = self.groups.get(pane)
            if group is None:
                group = self.groups[pane] = QTreeWidgetItem(self.table, [pane])
                group.setFirstColumnSpanned(True)
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
            QTreeWidgetItem(group, [keys, description, where])
        self.table.expandAll()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.filter.textChanged.connect(self.apply_filter)
        self.filter.setFocus()

    def apply_filter(self, text: str) -> None:
        """Show the rows whose keys, description or place hold every typed word."""
        words = text.lower().split()
        for group in self.groups.values():
            shown = 0
            for index in range(group.childCount()):
                row = group.child(index)
                haystack = " ".join(row.text(c) for c in range(len(COLUMNS))).lower()
                haystack += " " + group.text(0).lower()
                hidden = not all(word in haystack for word in words)
                row.setHidden(hidden)
                shown += not hidden
            group.setHidden(shown == 0)

    def shown_rows(self) -> list[tuple[str, str, str]]:
        """(keys, what it does, where) of every row on screen, in order."""
        found = []
        for group in self.groups.values():
            if group.isHidden():
                continue
            for index in range(group.childCount()):
                row = group.child(index)
                if not row.isHidden():
                    found.append((row.text(0), row.text(1), row.text(2)))
        return found
