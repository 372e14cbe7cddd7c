"""Issue 27, as a new user meets it: focus, stale messages, names, empty states, wording."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.pairs.mining import mine_pairs
from studio.store import Project

CTRL = Qt.KeyboardModifier.ControlModifier


def press_pane_key(qtbot, window, number: int) -> None:
    """Ctrl+<number> as the person presses it, wherever the focus is."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, getattr(Qt.Key, f"Key_{number}"), CTRL)
    QApplication.processEvents()


def test_each_pane_takes_the_keyboard_when_shown(window, demo_project_dir, qtbot) -> None:
    """D9: after Ctrl+3 the review keys (J, A, R, U) work without clicking into the pane."""
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 6)
    assert window.open_project(demo_project_dir)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press_pane_key(qtbot, window, 3)
    attributes = window.panes[2]
    assert window.stack.currentWidget() is attributes
    single = attributes.single
    assert single.index == 0
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert single.index == 1  # J went to the review, not nowhere
    press_pane_key(qtbot, window, 2)
    captions = window.panes[1]
    assert QApplication.focusWidget() is captions.writer.editor
    press_pane_key(qtbot, window, 1)
    assert QApplication.focusWidget() is window.panes[0].table
    press_pane_key(qtbot, window, 3)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert single.index == 2
