"""Undo and redo while writing a caption, across autosaves; emptied captions (#27 D3, D17)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from studio.captions import store
from studio.store import Project
from tests.gui.test_captions_pane import (
    ALT,
    CTRL,
    SHIFT,
    open_as,
    pair_ids,
    type_caption,
)


def own_text(path, pair_id: int, user: str = "ana") -> str | None:
    with Project.open(path) as project:
        own = store.own_caption(project, pair_id, user)
        return own.text if own else None


def wait_saved(qtbot, writer, path, pair_id: int, text: str) -> None:
    qtbot.waitUntil(lambda: own_text(path, pair_id) == text, timeout=10_000)


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
    assert writer.pair_id == first  # still on the same pair
    qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL | SHIFT)
    assert editor.text() == "is red with a"
    qtbot.keyClick(editor, Qt.Key.Key_Y, CTRL)
    assert editor.text() == "is red with a bow"
    assert writer.pair_id == first
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
    qtbot.waitUntil(lambda: writer.pair_id != ids[0])
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


def submit(path, texts: list[str], author: str = "ana") -> list[int]:
    with Project.open(path) as project:
        pairs = [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        return [
            store.submit_caption(project, pair_id, author, text)[0].id
            for pair_id, text in zip(pairs, texts, strict=False)
        ]


def test_review_undoes_accept_and_reject_with_ctrl_alt_z(window, ranked_demo, qtbot) -> None:
    first, second = submit(ranked_demo, ["is red wiht stripes", "is blue"])
    pane = open_as(window, ranked_demo, "rev")
    pane.set_mode(1)
    reviewer = pane.reviewer
    qtbot.waitUntil(lambda: reviewer.caption_id == first)
    type_caption(qtbot, reviewer.editor, "is red with stripes")
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, CTRL)  # accept, with the edit
    qtbot.waitUntil(lambda: reviewer.caption_id == second)
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, CTRL)
    qtbot.keyClicks(reviewer.reason, "wrong colour")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "rejected" in reviewer.state.text())
    # Undo the reject: the caption is submitted again, on screen.
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    qtbot.waitUntil(lambda: "submitted again" in reviewer.state.text())
    assert reviewer.caption_id == second
    # And the accept: text and status as the author left them.
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    qtbot.waitUntil(lambda: reviewer.caption_id == first)
    with Project.open(ranked_demo) as project:
        one, two = store.get_caption(project, first), store.get_caption(project, second)
        assert (one.status, one.text, one.reviewer) == ("submitted", "is red wiht stripes", None)
        assert (two.status, two.reject_reason) == ("submitted", None)
        assert [row["action"] for row in project.audit_trail("caption", first)][-2:] == [
            "accept",
            "undo",
        ]
    assert "Ctrl+Alt+Z" in reviewer.buttons["undo_decision"].toolTip()
