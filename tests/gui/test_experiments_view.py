"""Retrieval → Experiments: simulations, training, runs from other programs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

import studio.store.project as project_module
from tests.gui.async_helpers import run_until
from tests.gui.window_panes import show_pane_titled


def experiments_of(window):
    retrieval = next(pane for pane in window.panes if pane.title == "Retrieval")
    window.show_pane(window.panes.index(retrieval))
    retrieval.tabs.setCurrentWidget(retrieval.experiments)
    return retrieval.experiments


def test_a_read_only_project_offers_no_simulation_or_training_and_says_why(
    window, demo_project_dir, monkeypatch
) -> None:
    assert window.open_project(demo_project_dir)
    view = experiments_of(window)
    assert view.run_button.isEnabled() and view.train_button.isEnabled()
    # What the file system says of a file the user may not write (the tests run as root,
    # whom permissions do not stop; tests/reliability chmods as an unprivileged user).
    monkeypatch.setattr(project_module, "read_only_reason", lambda _path: "the file is read-only")
    assert window.open_project(demo_project_dir)
    assert window.workspace.project.read_only
    for button in (view.run_button, view.train_button):
        assert not button.isEnabled()
        assert "read-only" in button.toolTip()


def test_a_run_written_by_another_program_appears_within_seconds(
    window, demo_project_dir, qtbot
) -> None:
    """``cir-studio simulate`` in a terminal, the window open on the same SQLite file."""
    import subprocess
    import sys

    assert window.open_project(demo_project_dir)
    view = experiments_of(window)
    assert view.runs.count() == 0
    qtbot.wait(700)  # the window has taken its starting point
    script = (
        "import sys; from studio.store import Project; "
        "from studio.simulation.outputs import store_run; "
        "p = Project.open(sys.argv[1]); "
        "store_run(p, 'simulate', {'label': 'sum', 'per_turn': [], 'config': "
        "{'strategy': 'terminal-strategy', 'simulator': 'attribute'}}, [], 'cli'); "
        "p.close()"
    )
    subprocess.run([sys.executable, "-c", script, str(demo_project_dir)], check=True,
                   cwd=Path(__file__).resolve().parents[2], timeout=120)
    # The watcher polls every 0.5 s; the bound is generous for a loaded test machine.
    qtbot.waitUntil(lambda: view.runs.count() == 1, timeout=5000)
    assert "terminal-strategy" in view.runs.item(0).text()


def test_fashioniq_and_cirr_evaluations_are_listed_with_their_recall_and_open_queries(
    qtbot, workspace, services, tmp_path: Path
) -> None:
    from studio.simulation.outputs import store_run
    from studio.store import Project
    from widgets.experiments_view import ExperimentsView

    Project.create(tmp_path / "p").close()
    project = workspace.open_project(tmp_path / "p")
    fashioniq = {"split": "val", "strategy": "sum", "model": "demo",
                 "categories": {"dress": {"R@10": 0.25, "R@50": 0.5, "queries": 40,
                                          "gallery": 100}},
                 "average": {"R@10": 0.25, "R@50": 0.5, "score": 0.375},
                 "label": "Fashion IQ val · sum · score 0.38"}
    estimate = {"value": 0.3, "low": 0.2, "high": 0.4, "n": 60}
    cirr = {"protocol": "cirr", "strategy": "text", "model": "demo", "queries": 60,
            **{f"recall@{k}": {**estimate, "value": k / 100} for k in (1, 5, 10, 50)}}
    fiq_id = store_run(project, "evaluate-fashioniq", fashioniq, [], "tester")
    cirr_id = store_run(project, "evaluate-cirr", cirr, [], "tester")
    view = ExperimentsView(workspace, services.runner, services=services)
    qtbot.addWidget(view)
    view.refresh()
    texts = [view.runs.item(row).text() for row in range(view.runs.count())]
    assert len(texts) == 2
    assert any(f"#{fiq_id}" in t and "Fashion IQ val · sum" in t and "40 queries" in t
               and "R@10 0.25 · R@50 0.50" in t for t in texts)
    assert any(f"#{cirr_id}" in t and "CIRR · text" in t and "60 queries" in t
               and "R@1 0.01 · R@5 0.05 · R@10 0.10 · R@50 0.50" in t for t in texts)
    assert view.selected() == []  # listed, not plotted per turn
    for row in range(view.runs.count()):
        view.runs.setCurrentRow(row)
        browser = view.open_queries()
        assert browser is not None
        qtbot.addWidget(browser)
        # Runs stored without a query file (as before queries were kept) say so.
        qtbot.waitUntil(lambda b=browser: "no per-query results" in b.header.text(),
                        timeout=10_000)
        assert browser.run["id"] in (fiq_id, cirr_id)


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


def test_two_runs_of_one_strategy_are_told_apart_and_nothing_is_cut_at_1024x700(
    window, indexed_demo_dir, event_loop_qt
) -> None:
    window.resize(1024, 700)
    assert window.open_project(indexed_demo_dir)
    pane = show_pane_titled(window, "Retrieval")
    pane.tabs.setCurrentWidget(pane.experiments)
    view = pane.experiments
    view.dialogs.setValue(3)
    view.turns.setValue(2)
    for count in (1, 2):  # the same strategy and user twice
        event_loop_qt.run_until_complete(view.run())
        run_until(event_loop_qt, lambda count=count: view.runs.count() == count)
    QApplication.processEvents()
    view.canvas.draw()
    figure = view.canvas.figure
    legend_names = [text.get_text() for legend in figure.legends for text in legend.get_texts()]
    legend_names += [text.get_text() for axes in figure.axes if axes.get_legend()
                     for text in axes.get_legend().get_texts()]
    assert len(set(legend_names)) == len(legend_names) >= 2, legend_names
    assert all(name.startswith("#") for name in legend_names)  # the run number
    renderer = view.canvas.get_renderer()
    for axes in figure.axes:  # both titles whole inside the figure
        title = axes.title.get_window_extent(renderer)
        assert title.x0 >= 0 and title.x1 <= figure.bbox.x1, axes.get_title()
    for legend in [*figure.legends, *(a.get_legend() for a in figure.axes if a.get_legend())]:
        box = legend.get_window_extent(renderer)
        for axes in figure.axes:  # no legend lies over a plot's curves
            assert not box.overlaps(axes.get_window_extent(renderer)), axes.get_title()
    viewport = view.runs.viewport().rect()
    for row in range(view.runs.count()):
        item = view.runs.item(row)
        assert viewport.contains(view.runs.visualItemRect(item)), item.text()
        width = viewport.width()
        assert all(view.runs.fontMetrics().horizontalAdvance(part) <= width
                   for part in item.text().splitlines()), item.text()
