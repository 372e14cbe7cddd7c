"""A new user's walk, issue #27 (items D4, D6, D7/D8, D10, D11, D19): each test failed on
97b4282 and describes what the person sees now."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.async_helpers import run_until


def pane_titled(window, title: str):
    return next(pane for pane in window.panes if pane.title == title)


def show(window, title: str):
    pane = pane_titled(window, title)
    window.show_pane(window.panes.index(pane))
    return pane


def as_read_only(project: Project) -> None:
    """What Project.open finds for a file the user may not write. The tests run as root,
    whom permissions do not stop, so the test says it; tests/reliability runs the same
    refusal as an unprivileged user on a chmod'ed folder."""
    project.read_only_reason = "the file is read-only"
    project.db.execute("PRAGMA query_only = ON")


# -- D4: a read-only project offers nothing that writes ----------------------------------


def test_read_only_project_offers_no_index_build_and_says_why(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    retrieval = show(window, "Retrieval")
    retrieval.show_project(window.workspace.project)
    assert not retrieval.build_button.isEnabled()
    assert "read-only" in retrieval.build_button.toolTip()
    assert "read-only" in retrieval.loader_text.text()


def test_read_only_project_captions_do_not_offer_a_build(
    window, demo_project_dir, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    captions = show(window, "Captions")
    view = captions.rank_view
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    assert not view.build_button.isEnabled()
    assert "read-only" in view.build_button.toolTip()
    assert "read-only" in view.line.text() and "Building" not in view.line.text()


# -- D7/D8: chat mode --------------------------------------------------------------------


def open_retrieval(window, event_loop_qt, project_dir):
    assert window.open_project(project_dir)
    pane = show(window, "Retrieval")
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is not None, pane.loader_text.text()
    return pane


def type_turn(pane, qtbot, event_loop_qt, text: str) -> None:
    before = pane.timeline.count()
    pane.text.clear()
    qtbot.keyClicks(pane.text, text)
    qtbot.keyClick(pane.text, Qt.Key.Key_Return)
    run_until(event_loop_qt, lambda: pane.timeline.count() == before + 1)


def chips(pane) -> list:
    items = (pane.chips_row.itemAt(i).widget() for i in range(pane.chips_row.count()))
    return [widget for widget in items if widget is not None]


def test_after_an_answer_chip_the_next_answer_is_typed_in_the_answer_field(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)  # Chat
    window.activateWindow()
    type_turn(pane, qtbot, event_loop_qt, "a dress")
    chip = chips(pane)[0]
    turns = pane.timeline.count()
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)  # the click takes the focus
    run_until(event_loop_qt, lambda: pane.timeline.count() == turns + 1)
    QApplication.processEvents()
    assert QApplication.focusWidget() is pane.text
    qtbot.keyClicks(QApplication.focusWidget(), "red")  # what the person types next
    assert pane.text.text() == "red"


def test_a_new_chat_session_keeps_its_target_hidden(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)
    pane.reveal.setChecked(True)
    assert pane.target_view.isVisible()
    assert "hidden" not in pane.target_label.text()  # not "hidden" beside the picture
    # Before the first turn the target has no rank; it was "not in this gallery" (D8).
    assert "not in this gallery" not in pane.target_text.text()
    assert "no rank before the first turn" in pane.target_text.text()
    pane.new_button.click()
    QApplication.processEvents()
    assert not pane.reveal.isChecked()
    assert not pane.target_view.isVisible() and not pane.target_text.isVisible()
    assert pane.target_label.text() == "Target: hidden"
