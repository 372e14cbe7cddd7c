"""The Retrieval and Experiments defects found on the walk, each as a person would meet it."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from studio.store import Project


def run_until(loop, predicate, timeout: float = 120.0) -> None:
    async def wait() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    loop.run_until_complete(asyncio.wait_for(wait(), timeout))


def retrieval(window, event_loop_qt, project_dir, load: bool = True):
    window.resize(1024, 700)
    assert window.open_project(project_dir)
    window.show_pane(window.pane_titles().index("Retrieval"))
    pane = window.stack.currentWidget()
    if load:
        event_loop_qt.run_until_complete(pane.load_context())
        assert pane.session is not None, pane.loader_text.text()
    QApplication.processEvents()
    return pane


def type_turn(pane, qtbot, event_loop_qt, text: str) -> None:
    before = pane.timeline.count()
    pane.text.setFocus()
    pane.text.clear()
    qtbot.keyClicks(pane.text, text)
    qtbot.keyClick(pane.text, Qt.Key.Key_Return)
    run_until(event_loop_qt, lambda: pane.timeline.count() == before + 1)
    QApplication.processEvents()


def fully_shown(label: QLabel) -> bool:
    """Every character of the label fits in the space it has on screen."""
    rect = label.contentsRect()
    if label.wordWrap():
        return label.heightForWidth(rect.width()) <= rect.height()
    return label.fontMetrics().horizontalAdvance(label.text()) <= rect.width()


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
    pane = retrieval(window, event_loop_qt, indexed_demo_dir)
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
    pane = retrieval(window, event_loop_qt, indexed_demo_dir)
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
    pane = retrieval(window, event_loop_qt, indexed_demo_dir)
    assert not pane.export_button.isEnabled()
    type_turn(pane, qtbot, event_loop_qt, "is red")
    assert pane.export_button.isEnabled()
    pane.mode.setCurrentIndex(1)  # chat sessions have no reference images to export
    assert not pane.export_button.isEnabled()


def test_before_the_first_turn_the_results_say_what_to_do(
    window, qtbot, event_loop_qt, indexed_demo_dir
):
    pane = retrieval(window, event_loop_qt, indexed_demo_dir)
    assert pane.first_turn_hint.isVisible() and not pane.results.isVisible()
    assert "press Enter" in pane.first_turn_hint.text()
    type_turn(pane, qtbot, event_loop_qt, "is red")
    assert pane.results.isVisible() and not pane.first_turn_hint.isVisible()


def test_chat_mode_clears_the_composed_text(window, qtbot, event_loop_qt, indexed_demo_dir):
    pane = retrieval(window, event_loop_qt, indexed_demo_dir)
    qtbot.keyClicks(pane.text, "I still prefer the item from the first turn")
    pane.mode.setCurrentIndex(1)
    assert pane.text.text() == ""
    assert pane.prompt.text().startswith("Describe")


def test_the_empty_state_says_an_index_exists(window, event_loop_qt, indexed_demo_dir):
    pane = retrieval(window, event_loop_qt, indexed_demo_dir, load=False)
    assert "An index of 60 images for 'demo' exists" in pane.loader_text.text()


def test_build_index_says_when_it_is_done_and_what_it_built(
    window, event_loop_qt, demo_project_dir
):
    pane = retrieval(window, event_loop_qt, demo_project_dir, load=False)
    assert "no index" in pane.loader_text.text()
    event_loop_qt.run_until_complete(pane.build_index())
    run_until(event_loop_qt, lambda: pane.session is not None)
    assert "Index ready: 60 images with 'demo'" in pane.status.text()
    assert "attribute labels" in pane.status.text()  # it read them from the product text
    assert "Index ready" in window.statusBar().currentMessage()


@pytest.fixture
def experiments(window, indexed_demo_dir):
    window.resize(1024, 700)
    assert window.open_project(indexed_demo_dir)
    window.show_pane(window.pane_titles().index("Retrieval"))
    pane = window.stack.currentWidget()
    pane.tabs.setCurrentWidget(pane.experiments)
    return pane.experiments


def test_experiments_say_why_a_run_has_fewer_dialogs(experiments, window, event_loop_qt):
    view = experiments
    view.dialogs.setValue(500)
    view.turns.setValue(2)
    labels: list[str] = []
    window.runner.progressed.connect(lambda *_: labels.append(window.job_status.label.text()))
    event_loop_qt.run_until_complete(view.run())
    run_until(event_loop_qt, lambda: view.runs.count() == 1)
    ran = view.runs.item(0).data(Qt.ItemDataRole.UserRole)["queries"]
    assert ran < 500
    assert f"Ran {ran} dialogs, not 500" in view.message.text()
    assert labels and all(label.count("history/attribute") <= 1 for label in labels)


def test_runs_are_listed_with_date_strategy_user_and_result_over_a_turn_table(
    experiments, event_loop_qt
):
    view = experiments
    view.dialogs.setValue(3)
    view.turns.setValue(2)
    event_loop_qt.run_until_complete(view.run())
    run_until(event_loop_qt, lambda: view.runs.count() == 1)
    line = view.runs.item(0).text()
    assert line.startswith("#1 · 20") and "history · user attribute" in line
    assert "R@10" in line and "3 dialogs × 2 turns" in line
    assert view.table.rowCount() == 2 and view.table.isVisible()
    QApplication.processEvents()
    below = view.table.mapTo(view, view.table.rect().topLeft()).y()
    assert below >= view.canvas.mapTo(view, view.canvas.rect().bottomLeft()).y()  # under the plots
    width = view.runs.viewport().width()
    assert all(
        view.runs.fontMetrics().horizontalAdvance(part) <= width for part in line.splitlines()
    )  # each line of a run fits the list
    headings = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert headings[:3] == ["Run", "Turn", "R@1"] and "Mean rank" in headings
    assert [view.table.item(r, 1).text() for r in range(2)] == ["1", "2"]


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


def test_learned_speech_is_the_default_and_sample_dialogs_show_what_was_typed(
    experiments, event_loop_qt
):
    view = experiments
    assert view.speech.currentText() == "learned"
    view.dialogs.setValue(2)
    view.turns.setValue(2)
    event_loop_qt.run_until_complete(view.run())
    run_until(event_loop_qt, lambda: view.runs.count() == 1)
    shown = view.sample_dialogs.text()
    assert shown.startswith("Dialog 1: “") and "Dialog 2: “" in shown
    run = view.runs.item(0).data(Qt.ItemDataRole.UserRole)
    assert run["config"]["users"] == "learned"
    view.speech.setCurrentText("catalog")
    event_loop_qt.run_until_complete(view.run())
    run_until(event_loop_qt, lambda: view.runs.count() == 2)
    assert view.sample_dialogs.text() != shown  # catalog words, not the learned ones


def test_strategy_boxes_show_trained_combiner_names_whole(qtbot, workspace, services) -> None:
    from PySide6.QtWidgets import QWidget

    from widgets.experiments_view import ExperimentsView
    from widgets.retrieval_controls import SessionControls

    name = "history+combiner:fashioniq-dress-toptee-2026-11"
    controls = SessionControls()
    strip = QWidget()
    strip.setLayout(controls.bar)
    qtbot.addWidget(strip)
    strip.resize(1024 - 170, 80)
    strip.show()
    QApplication.processEvents()
    controls.add_strategies([name])  # trained combiners arrive after the strip is shown
    controls.strategy.setCurrentIndex(controls.strategy.findData(name))
    experiments = ExperimentsView(workspace, services.runner)
    qtbot.addWidget(experiments)
    experiments.resize(1024 - 170, 600)
    experiments.show()
    QApplication.processEvents()
    experiments.strategy.addItems([name])  # as refresh_strategies does after training
    experiments.strategy.setCurrentText(name)
    for _ in range(3):
        QApplication.processEvents()
    for combo in (controls.strategy, experiments.strategy):
        needed = combo.fontMetrics().horizontalAdvance(name)
        assert combo.width() > needed, combo.width()
