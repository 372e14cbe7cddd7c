"""Review undo and ranks that say whose text they belong to (#27 D18)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from studio.captions import store
from studio.captions.ranks import rank_captions
from studio.store import Project
from tests.gui.test_caption_rank import open_as, rank_shown_for, ranked_demo, type_caption

__all__ = ["ranked_demo"]
CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier


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
    assert reviewer.session.current == first
    type_caption(qtbot, reviewer.editor, "is red with stripes")
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Return, CTRL)  # accept, with the edit
    assert reviewer.session.current == second
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_R, CTRL)
    qtbot.keyClicks(reviewer.reason, "wrong colour")
    qtbot.keyClick(reviewer.reason, Qt.Key.Key_Return)
    # Undo the reject: the caption is submitted again, on screen.
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    assert reviewer.session.current == second
    assert "submitted again" in reviewer.state.text()
    # And the accept: text and status as the author left them.
    qtbot.keyClick(reviewer.editor, Qt.Key.Key_Z, CTRL | ALT)
    assert reviewer.session.current == first
    with Project.open(ranked_demo) as project:
        one, two = store.get_caption(project, first), store.get_caption(project, second)
        assert (one.status, one.text, one.reviewer) == ("submitted", "is red wiht stripes", None)
        assert (two.status, two.reject_reason) == ("submitted", None)
        assert [row["action"] for row in project.audit_trail("caption", first)][-2:] == [
            "accept",
            "undo",
        ]
    assert "Ctrl+Alt+Z" in reviewer.buttons["undo_decision"].toolTip()


def test_an_edit_in_review_marks_the_stored_rank_stale(window, ranked_demo, qtbot) -> None:
    [caption_id] = submit(ranked_demo, ["is red with long sleeves"])
    with Project.open(ranked_demo) as project:
        rank_captions(project, device="cpu")
    pane = open_as(window, ranked_demo, "ben")
    pane.set_mode(1)
    line = pane.rank_line
    assert pane.reviewer.session.current == caption_id
    assert "stale" not in line.note.text()
    type_caption(qtbot, pane.reviewer.editor, "is blue and sleeveless")
    assert "stale: the caption was edited since" in line.note.text()
    type_caption(qtbot, pane.reviewer.editor, "is red with long sleeves")  # back as stored
    assert "stale" not in line.note.text()


def test_while_writing_the_rank_on_screen_says_it_is_the_previous_texts(
    window, ranked_demo, qtbot
) -> None:
    pane = open_as(window, ranked_demo, "ana")
    view = pane.rank_view
    type_caption(qtbot, pane.writer.editor, "is red")
    qtbot.waitUntil(lambda: rank_shown_for(view, "is red"), timeout=30000)
    qtbot.keyClicks(pane.writer.editor, " with long sleeves")
    assert view.line.text().startswith("Target rank with the previous text:")
    assert "updating" in view.line.text()
    qtbot.waitUntil(lambda: rank_shown_for(view, "is red with long sleeves"), timeout=30000)
    assert "previous" not in view.line.text()
