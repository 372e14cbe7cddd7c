"""The Experiments tab lists stored CIRCO evaluations with their mAP figures."""

from __future__ import annotations

from pathlib import Path

from studio.simulation.outputs import store_run
from studio.store import Project


def test_circo_runs_are_listed_with_map_and_recall(
    qtbot, workspace, services, tmp_path: Path
) -> None:
    from widgets.experiments_view import ExperimentsView

    Project.create(tmp_path / "p").close()
    project = workspace.open_project(tmp_path / "p")
    summary = {"protocol": "circo", "split": "val", "strategy": "sum", "queries": 220,
               "mAP": {"5": 1.0, "10": 2.5, "25": 3.0, "50": 3.5},
               "recall": {"5": 4.0, "10": 6.0, "25": 9.0, "50": 12.0}}
    store_run(project, "evaluate-circo", summary, [], "tester")
    view = ExperimentsView(workspace, services.runner)
    qtbot.addWidget(view)
    view.refresh()
    texts = [view.runs.item(row).text() for row in range(view.runs.count())]
    assert any("CIRCO val · sum" in t and "mAP@10 2.50" in t and "R@10 6.00" in t
               for t in texts)
    assert view.selected() == []  # listed, not plotted per turn
