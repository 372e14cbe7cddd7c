"""The Retrieval pane: composed sessions and chat rounds by keyboard, the gallery, the target
and its rank, the index, read-only projects, and its layout at 1024 × 700."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from studio.sessions.store import list_sessions, load_session
from studio.store import Project
from tests.gui.async_helpers import run_until
from tests.gui.read_only_projects import as_read_only
from tests.gui.window_panes import show_pane_titled


def open_retrieval(window, qtbot, event_loop_qt, project_dir):
    assert window.open_project(project_dir)
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    pane = window.stack.currentWidget()
    assert pane.title == "Retrieval"
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is not None, pane.loader_text.text()
    return pane


def shown_retrieval(window, event_loop_qt, project_dir, load: bool = True):
    """The Retrieval pane of ``project_dir``, shown, with its index loaded when ``load``."""
    assert window.open_project(project_dir)
    pane = show_pane_titled(window, "Retrieval")
    if load:
        event_loop_qt.run_until_complete(pane.load_context())
        assert pane.session is not None, pane.loader_text.text()
    QApplication.processEvents()
    return pane


def retrieval_at_1024(window, event_loop_qt, project_dir, load: bool = True):
    """The same in a 1024 × 700 window, the smallest the studio is laid out for."""
    window.resize(1024, 700)
    return shown_retrieval(window, event_loop_qt, project_dir, load)


def type_turn(pane, qtbot, event_loop_qt, text: str) -> None:
    """Type ``text`` in the turn field and press Enter; wait for the turn's results."""
    before = pane.timeline.count()
    pane.text.setFocus()
    pane.text.clear()
    qtbot.keyClicks(pane.text, text)
    qtbot.keyClick(pane.text, Qt.Key.Key_Return)
    run_until(event_loop_qt, lambda: pane.timeline.count() == before + 1)
    QApplication.processEvents()


def test_a_three_turn_session_with_rollback_by_keyboard(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, qtbot, event_loop_qt, indexed_demo_dir)
    assert pane.session.target_id is not None  # a secret target by default
    first_reference = pane.pending_reference
    project = window.workspace.project
    assert project.image(first_reference).category == project.image(pane.session.target_id).category
    type_turn(pane, qtbot, event_loop_qt, "is red with long sleeves")
    assert pane.results.count() == pane.top_k.value() == 10
    assert pane.target_label.text().startswith("Target rank:")
    row = next(r for r in (1, 2) if pane.results.hit_id(r) != pane.session.target_id)
    second = pane.results.hit_id(row)
    key = Qt.Key.Key_1 + row  # Alt+2 or Alt+3: that result becomes the reference
    qtbot.keyClick(pane, key, Qt.KeyboardModifier.AltModifier)
    type_turn(pane, qtbot, event_loop_qt, "is shorter")
    assert pane.session.turns[1].reference_id == second
    # The timeline says what the ranking used: turn 1's colour carried, length relative.
    assert "wants: colour = red, sleeve = long sleeve, length < turn 1's item" in (
        pane.timeline.item(1).text())
    # Go back… and Keep… offer every earlier turn; a choice puts its phrase before the text.
    back = pane.turns._rollback_menu().actions()
    assert [a.text().split(":")[0] for a in back] == ["Turn 1", "Turn 2"]
    keep = pane.turns._combine_menu().actions()
    assert [a.text() for a in keep] == ["From turn 1", "From turn 2"]
    assert keep[0].menu().actions()[0].text().startswith("keep the ")
    pane.text.setText("is blue")
    back[0].trigger()
    assert pane.text.text().endswith(", and is blue") and pane.text.text() != ", and is blue"
    type_turn(pane, qtbot, event_loop_qt, "go back to turn 1 and make it blue")
    rollback = pane.session.turns[2]
    assert rollback.kind == "rollback" and rollback.reference_id == second
    assert pane.timeline.count() == 3
    assert "rollback" in pane.timeline.item(2).text()
    recorded = load_session(window.workspace.project, list_sessions(window.workspace.project)[0]["id"])
    assert [t["text"] for t in recorded.turns] == [
        "is red with long sleeves", "is shorter", "go back to turn 1 and make it blue"
    ]
    assert recorded.turns[0]["reference_id"] == first_reference
    assert all(t["target_rank"] for t in recorded.turns)
    pane.save_transaction()
    count = window.workspace.project.db.execute(
        "SELECT count(*) FROM transactions WHERE dataset = 'sessions'").fetchone()[0]
    assert count == 1
    from widgets.recorded_sessions_dialog import RecordedSessionsDialog

    dialog = RecordedSessionsDialog(window.workspace.project, "ana", pane)
    qtbot.addWidget(dialog)
    assert dialog.timeline.count() == 3  # the newest session replayed
    assert "rollback" in dialog.timeline.item(2).text()
    dialog.save_selected()
    assert dialog.save_button.text() == "Already saved"


def test_chat_mode_asks_questions_with_answer_chips(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, qtbot, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)  # Chat
    assert not pane.rollback_button.isEnabled()
    type_turn(pane, qtbot, event_loop_qt, "a dress")
    assert pane.question is not None and pane.question_label.text()
    first_facet = pane.question.facet
    chips = [pane.chips_row.itemAt(i).widget() for i in range(pane.chips_row.count())]
    chip = next(w for w in chips if w is not None)
    answer = chip.text()
    turns = pane.timeline.count()
    chip.click()
    run_until(event_loop_qt, lambda: pane.timeline.count() == turns + 1)
    assert pane.session.turns[-1].answer == answer
    assert pane.question is None or pane.question.facet != first_facet


def test_experiments_tab_runs_a_simulation_and_plots_it(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    assert window.open_project(indexed_demo_dir)
    window.show_pane(3)
    view = window.stack.currentWidget().experiments
    assert view.runs.count() == 0 and not view.note.isHidden()
    view.dialogs.setValue(3)
    view.turns.setValue(2)
    event_loop_qt.run_until_complete(view.run())
    assert view.runs.count() == 1
    assert view.canvas is not None and view.note.isHidden()
    assert len(view.canvas.figure.axes) == 2
    view.runs.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert view.canvas.isHidden() and not view.note.isHidden()


def test_a_project_without_an_index_builds_one_then_searches(
    window, qtbot, event_loop_qt, demo_project_dir
) -> None:
    assert window.open_project(demo_project_dir)
    window.show_pane(3)
    pane = window.stack.currentWidget()
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is None and "no index" in pane.loader_text.text()
    event_loop_qt.run_until_complete(pane.build_index())
    run_until(event_loop_qt, lambda: pane.session is not None)
    assert pane.controller.context.facets  # attributes were extracted from the product text
    type_turn(pane, qtbot, event_loop_qt, "is blue")
    assert pane.results.count() == 10


def test_target_rank_is_not_cut_at_1024x700(window, qtbot, event_loop_qt, indexed_demo_dir):
    from widgets.panes.retrieval_pane import RetrievalPane

    # The pane alone, at the size a 1024×700 window gives it (less the 170 px navigation
    # and the menu and status bars), so the test does not depend on other panes' widths.
    # It shares the window's workspace and job runner (shut down with the window).
    workspace = window.workspace
    pane = RetrievalPane(window.services)
    qtbot.addWidget(pane)
    pane.resize(1024 - 170, 700 - 60)
    pane.show()
    workspace.open_project(indexed_demo_dir)
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is not None and pane.width() <= 1024 - 170
    type_turn(pane, qtbot, event_loop_qt, "is red with long sleeves")
    type_turn(pane, qtbot, event_loop_qt, "is shorter")
    assert "Target rank:" in pane.target_label.text() and "(was" in pane.target_label.text()
    assert pane.target_label.isVisible() and fully_shown(pane.target_label)


def test_reveal_shows_the_target_and_its_rank_below_the_shown_results(
    window, qtbot, event_loop_qt, indexed_demo_dir
):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir)
    pane.top_k.setValue(1)
    pane.new_session()
    for _ in range(8):
        type_turn(pane, qtbot, event_loop_qt, "is a plain black garment")
        if pane.session.turns[-1].target_rank > 1:
            break
        pane.new_session()
    rank = pane.session.turns[-1].target_rank
    assert rank > 1 and pane.results.count() == 1  # the target is not among the results
    pane.reveal.setChecked(True)
    QApplication.processEvents()
    assert pane.target_view.isVisible() and not pane.target_view.pixmap().isNull()
    assert f"rank {rank}" in pane.target_text.text()
    assert pane.session.target_id in pane.target_text.text()


def test_the_gallery_defaults_to_the_references_category_and_can_widen(
    window, qtbot, event_loop_qt, indexed_demo_dir
):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir)
    project: Project = window.workspace.project
    category = project.image(pane.pending_reference).category
    assert pane.gallery.currentText() == "Reference's category"
    type_turn(pane, qtbot, event_loop_qt, "is blue")
    shown = {project.image(pane.results.hit_id(r)).category for r in range(pane.results.count())}
    assert shown == {category}
    assert f"{category} images" in pane.status.text()
    pane.gallery.setCurrentIndex(pane.gallery.findData("all"))
    type_turn(pane, qtbot, event_loop_qt, "is blue")
    last = pane.session.turns[-1]
    assert len({project.image(hit.id).category for hit in last.results}) > 1


def test_save_as_transaction_waits_for_a_turn(window, qtbot, event_loop_qt, indexed_demo_dir):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir)
    assert not pane.export_button.isEnabled()
    type_turn(pane, qtbot, event_loop_qt, "is red")
    assert pane.export_button.isEnabled()
    pane.mode.setCurrentIndex(1)  # chat sessions have no reference images to export
    assert not pane.export_button.isEnabled()


def test_before_the_first_turn_the_results_say_what_to_do(
    window, qtbot, event_loop_qt, indexed_demo_dir
):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir)
    assert pane.first_turn_hint.isVisible() and not pane.results.isVisible()
    assert "press Enter" in pane.first_turn_hint.text()
    type_turn(pane, qtbot, event_loop_qt, "is red")
    assert pane.results.isVisible() and not pane.first_turn_hint.isVisible()


def test_chat_mode_clears_the_composed_text(window, qtbot, event_loop_qt, indexed_demo_dir):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir)
    qtbot.keyClicks(pane.text, "I still prefer the item from the first turn")
    pane.mode.setCurrentIndex(1)
    assert pane.text.text() == ""
    assert pane.prompt.text().startswith("Describe")


def test_the_empty_state_says_an_index_exists(window, event_loop_qt, indexed_demo_dir):
    pane = retrieval_at_1024(window, event_loop_qt, indexed_demo_dir, load=False)
    assert "An index of 60 images for 'demo' exists" in pane.loader_text.text()


def test_build_index_says_when_it_is_done_and_what_it_built(
    window, event_loop_qt, demo_project_dir
):
    pane = retrieval_at_1024(window, event_loop_qt, demo_project_dir, load=False)
    assert "no index" in pane.loader_text.text()
    event_loop_qt.run_until_complete(pane.build_index())
    run_until(event_loop_qt, lambda: pane.session is not None)
    assert "Index ready: 60 images with 'demo'" in pane.status.text()
    assert "attribute labels" in pane.status.text()  # it read them from the product text
    assert "Index ready" in window.statusBar().currentMessage()


def fully_shown(label: QLabel) -> bool:
    """Every character of the label fits in the space it has on screen."""
    rect = label.contentsRect()
    if label.wordWrap():
        return label.heightForWidth(rect.width()) <= rect.height()
    return label.fontMetrics().horizontalAdvance(label.text()) <= rect.width()


def test_session_bar_shows_whole_choices_at_1024x700(
    window, qtbot, event_loop_qt, indexed_demo_dir
):
    from widgets.panes.retrieval_pane import RetrievalPane

    # The pane alone at the width a 1024 px window leaves it (less the navigation).
    pane = RetrievalPane(window.services)
    qtbot.addWidget(pane)
    pane.resize(1024 - 170, 700 - 60)
    pane.show()
    window.workspace.open_project(indexed_demo_dir)
    event_loop_qt.run_until_complete(pane.load_context())
    QApplication.processEvents()
    assert pane.minimumSizeHint().width() <= 1024 - 170
    for combo in (pane.mode, pane.strategy, pane.gallery):
        needed = combo.fontMetrics().horizontalAdvance(combo.currentText())
        assert combo.width() >= combo.sizeHint().width(), combo.currentText()
        assert combo.width() > needed, combo.currentText()


def test_rank_line_and_session_list_fit_their_text_at_1024(
    window, indexed_demo_dir, qtbot
) -> None:
    """"Target rank: 1,278 (was 4,423)" stays on one line at 1024×700; the recorded
    sessions list is wide enough for its dates."""
    from studio.sessions.setup import load_session_context
    from studio.sessions.store import SessionRecorder
    from widgets.recorded_sessions_dialog import RecordedSessionsDialog

    with Project.open(indexed_demo_dir) as project:
        context = load_session_context(project, "demo", "cpu")
        session = context.new_session("history")
        recorder = SessionRecorder(project, "ana")
        recorder.start(session, "demo")
        recorder.record(session.composed_turn("is red with long sleeves"))
    window.resize(1024, 700)
    assert window.open_project(indexed_demo_dir)
    window.show_pane(3)
    pane = window.panes[3]
    pane._stack.setCurrentIndex(2)  # the session view, as after Load
    text = "Target rank: 1,278 (was 4,423)"
    pane.target_label.setText(text)
    QApplication.processEvents()
    assert pane.target_label.width() >= pane.target_label.fontMetrics().horizontalAdvance(text)
    dialog = RecordedSessionsDialog(window.workspace.project, "ana", window)
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    item = dialog.sessions.item(0)
    assert item.text().endswith(item.text()[-16:]) and ":" in item.text()[-5:]  # the time
    room = dialog.sessions.viewport().width()
    assert dialog.sessions.fontMetrics().horizontalAdvance(item.text()) <= room


def test_read_only_project_offers_no_index_build_and_says_why(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    retrieval = show_pane_titled(window, "Retrieval")
    retrieval.show_project(window.workspace.project)
    assert not retrieval.build_button.isEnabled()
    assert "read-only" in retrieval.build_button.toolTip()
    assert "read-only" in retrieval.loader_text.text()


def chips(pane) -> list:
    items = (pane.chips_row.itemAt(i).widget() for i in range(pane.chips_row.count()))
    return [widget for widget in items if widget is not None]


def test_after_an_answer_chip_the_next_answer_is_typed_in_the_answer_field(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = shown_retrieval(window, event_loop_qt, indexed_demo_dir)
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
    pane = shown_retrieval(window, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)
    pane.reveal.setChecked(True)
    assert pane.target_view.isVisible()
    assert "hidden" not in pane.target_label.text()  # not "hidden" beside the picture
    # Before the first turn the target has no rank; it was "not in this gallery".
    assert "not in this gallery" not in pane.target_text.text()
    assert "no rank before the first turn" in pane.target_text.text()
    pane.new_button.click()
    QApplication.processEvents()
    assert not pane.reveal.isChecked()
    assert not pane.target_view.isVisible() and not pane.target_text.isVisible()
    assert pane.target_label.text() == "Target: hidden"
