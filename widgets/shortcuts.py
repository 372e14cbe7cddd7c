"""Keyboard shortcuts for a panel, and keeping line edits from swallowing them.

A ``QLineEdit`` claims some key combinations for itself (Ctrl+K deletes to the end of
the line on some platforms, Ctrl+Shift+Z is redo). ``KeyPassthrough`` tells the editor
to let ours through, so the panel's shortcut always wins while the editor has focus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def add_shortcuts(
    owner: QWidget, keys: Iterable[str], slot: Callable[[], object]
) -> list[QShortcut]:
    """Shortcuts active while focus is anywhere inside ``owner``."""
    made = []
    for key in keys:
        shortcut = QShortcut(QKeySequence(key), owner)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)
        made.append(shortcut)
    return made


class KeyPassthrough(QObject):
    """Event filter: the watched editor does not override these key combinations."""

    def __init__(self, keys: Iterable[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.combinations = {QKeySequence(key)[0] for key in keys}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            combination = event.keyCombination()
            plain = QKeySequence(
                combination.key()
                | combination.keyboardModifiers() & ~Qt.KeyboardModifier.KeypadModifier
            )[0]
            if combination in self.combinations or plain in self.combinations:
                event.ignore()
                return True
        return False
