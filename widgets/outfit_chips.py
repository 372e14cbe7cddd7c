"""Chips of one region's attributes, or of an outfit's values, with a box to add one.

A chip shows its state (outlined: a suggestion, green: holds, struck red: rejected) and
its source in the tooltip; clicking a suggestion accepts it, the × removes (or rejects) it.
Typing in the box completes from the ontology; Enter adds.
"""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from widgets.attribute_chips import STATUS_MARK, STATUS_STYLE
from widgets.flow_layout import FlowLayout


class OutfitChips(QWidget):
    added = Signal(str)  # the typed text
    removed = Signal(int)  # value id
    accepted = Signal(int)  # value id (a suggestion)

    def __init__(self, title: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        heading = QLabel(title)
        heading.setObjectName("sectionHeading")
        layout.addWidget(heading)
        self.flow_host = QWidget()
        self.flow = FlowLayout(self.flow_host)
        layout.addWidget(self.flow_host)
        self.entry = QLineEdit()
        self.entry.setPlaceholderText(placeholder)
        self.completer = QCompleter([], self.entry)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.entry.setCompleter(self.completer)
        self.entry.returnPressed.connect(self._add)
        # Enter on a highlighted completion: the completer writes it into the box after
        # returnPressed and after its activated signal; add it once that is done (next
        # turn of the event loop), so the box emptied after adding stays empty.
        self.completer.activated[str].connect(self._chosen)
        self._adding_choice = False
        layout.addWidget(self.entry)
        self.chips: dict[int, QWidget] = {}
        self._choices: list[str] = []

    def set_choices(self, choices: list[str]) -> None:
        if self._choices != choices:
            self._choices = choices
            self.completer.setModel(QStringListModel(choices, self.completer))

    def set_chips(self, chips: list[tuple[int, str, str, str]]) -> None:
        """(value id, text, status, tooltip) per chip."""
        while self.flow.count():
            item = self.flow.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().hide()  # gone now, not at the next turn of the event loop
                item.widget().deleteLater()
        self.chips = {}
        for value_id, text, status, tooltip in chips:
            chip = QWidget()
            row = QHBoxLayout(chip)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(0)
            name = QPushButton(f"{STATUS_MARK[status]} {text}")
            name.setToolTip(tooltip + ("\nClick to accept" if status == "suggested" else ""))
            name.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            name.setStyleSheet(f"QPushButton {{ {STATUS_STYLE[status]} border-radius: 9px; "
                               "padding: 2px 8px; }")
            if status == "suggested":
                name.clicked.connect(lambda _=False, v=value_id: self.accepted.emit(v))
            close = QPushButton("×")
            close.setToolTip("Remove (a label someone else gave is rejected)")
            close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            close.setFixedWidth(22)
            close.clicked.connect(lambda _=False, v=value_id: self.removed.emit(v))
            row.addWidget(name)
            row.addWidget(close)
            self.flow.addWidget(chip)
            self.chips[value_id] = chip

    def _add(self) -> None:
        popup = self.completer.popup()
        if popup.isVisible() and popup.currentIndex().isValid():
            self._adding_choice = True  # _chosen adds the completion the completer writes
            return
        text = self.entry.text().strip()
        if text:
            self.added.emit(text)

    def _chosen(self, text: str) -> None:
        if self._adding_choice:
            self._adding_choice = False
            QTimer.singleShot(0, self, lambda: self.added.emit(text))

    def clear_entry(self) -> None:
        self.completer.popup().hide()
        self.entry.clear()

    def show_choices(self) -> None:
        """List the ontology's values under the box (after a word it does not know)."""
        self.completer.setCompletionPrefix("")
        self.completer.complete()
