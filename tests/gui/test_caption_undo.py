"""Undo and redo while writing a caption, across autosaves; emptied captions (#27 D3, D17)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from studio.captions import store
from studio.store import Project
from tests.gui.test_captions_pane import ALT, CTRL, SHIFT, open_as, pair_ids, pairs_demo

__all__ = ["pairs_demo"]


def own_text(path, pair_id: int, user: str = "ana") -> str | None:
    with Project.open(path) as project:
        own = store.own_caption(project, pair_id, user)
        return own.text if own else None


def wait_saved(qtbot, writer, path, pair_id: int, text: str) -> None:
    qtbot.waitUntil(lambda: own_text(path, pair_id) == text, timeout=3000)


def test_undo_and_redo_typing_step_by_step_across_autosaves(window, pairs_demo, qtbot) -> None:
    """D3: Ctrl+Z steps back a word at a time even after autosaves; Ctrl+Shift+Z, Ctrl+Y redo."""
    first = pair_ids(pairs_demo)[0]
    pane = open_as(window, pairs_demo, "ana")
    writer, editor = pane.writer, pane.writer.editor
    editor.setFocus()
    qtbot.keyClicks(editor, "is red")
    wait_saved(qtbot, writer, pairs_demo, first, "is red")  # an autosave in between
    qtbot.keyClicks(editor, " with a bow")
    wait_saved(qtbot, writer, pairs_demo, first, "is red with a bow")
    qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL)
    assert editor.text() == "is red with a"
    qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL)
    assert editor.text() == "is red with"
    assert writer.session.current == first  # still on the same pair
    qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL | SHIFT)
    assert editor.text() == "is red with a"
    qtbot.keyClick(editor, Qt.Key.Key_Y, CTRL)
    assert editor.text() == "is red with a bow"
    assert writer.session.current == first
    # Undo all the way: the empty editor is never saved over the words.
    for _ in range(6):
        qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL)
    assert editor.text() == ""
    qtbot.wait(700)  # longer than the autosave pause
    writer.flush()
    assert own_text(pairs_demo, first) == "is red with a bow"
    qtbot.keyClick(editor, Qt.Key.Key_Y, CTRL)
    assert editor.text() == "is"
    hint = " ".join(label.text() for label in writer.findChildren(QLabel))
    assert "Ctrl+Alt+Z undo last save" in hint
    assert "Ctrl+Alt+Z" in writer.buttons["undo_save"].toolTip()


def test_a_caption_cleared_and_left_leaves_no_draft(window, pairs_demo, qtbot) -> None:
    """D17: clear a draft and move on: nothing empty is stored, nothing counted as a draft."""
    ids = pair_ids(pairs_demo)
    pane = open_as(window, pairs_demo, "ana")
    writer, editor = pane.writer, pane.writer.editor
    editor.setFocus()
    qtbot.keyClicks(editor, "has a belt")
    wait_saved(qtbot, writer, pairs_demo, ids[0], "has a belt")
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.wait(600)
    qtbot.keyClick(editor, Qt.Key.Key_Right, ALT)
    assert writer.session.current != ids[0]
    assert own_text(pairs_demo, ids[0]) is None
    with Project.open(pairs_demo) as project:
        drafts = [c for c in store.captions_for_pair(project, ids[0]) if c.status == "draft"]
    assert drafts == []
    counted = pane.refresh_progress()  # read on the IO lane, shown here
    qtbot.waitUntil(counted.done)
    QApplication.processEvents()  # the relay delivers the counts
    table = pane.progress.table
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    assert "ana" not in rows or table.item(rows["ana"], 4).text() == "0"  # Drafts column
