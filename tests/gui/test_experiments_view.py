"""Retrieval → Experiments: simulations, training, runs from other programs."""

from __future__ import annotations

from pathlib import Path

import studio.store.project as project_module


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
