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
    import time

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
    written = time.monotonic()
    qtbot.waitUntil(lambda: view.runs.count() == 1, timeout=2000)
    assert time.monotonic() - written < 2.0
    assert "terminal-strategy" in view.runs.item(0).text()
