"""A three-turn composed session and a chat round in the Retrieval pane, by keyboard."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from studio.sessions.store import list_sessions, load_session


def run_until(loop, predicate, timeout: float = 120.0) -> None:
    async def wait() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    loop.run_until_complete(asyncio.wait_for(wait(), timeout))


def open_retrieval(window, qtbot, event_loop_qt, project_dir):
    assert window.open_project(project_dir)
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    pane = window.stack.currentWidget()
    assert pane.title == "Retrieval"
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is not None, pane.loader_text.text()
    return pane


def type_turn(pane, qtbot, event_loop_qt, text: str) -> None:
    before = pane.timeline.count()
    pane.text.clear()
    qtbot.keyClicks(pane.text, text)
    qtbot.keyClick(pane.text, Qt.Key.Key_Return)
    run_until(event_loop_qt, lambda: pane.timeline.count() == before + 1)


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
