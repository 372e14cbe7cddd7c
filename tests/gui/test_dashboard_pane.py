"""The Dashboard pane: charts of captions, labels and ratings, imported captions counted."""

from __future__ import annotations

from studio.store import Project
from tests.gui.window_panes import show_pane_titled


def test_the_dashboard_counts_imported_captions_and_keeps_legends_in_their_charts(
    window, demo_project_dir, tmp_path, fashioniq_fixtures, qtbot
) -> None:
    """Imported captions are captions ("12 captions, all imported", not "No captions
    submitted yet"); each legend sits inside its own chart, not between two."""
    import json

    from studio.demo.showcase import fill_showcase
    from studio.importers import import_fashioniq

    entries = json.loads((fashioniq_fixtures / "captions/cap.dress.val.json").read_text())[:6]
    root = tmp_path / "fiq"
    (root / "captions").mkdir(parents=True)
    (root / "image_splits").mkdir(parents=True)
    (root / "captions/cap.dress.val.json").write_text(json.dumps(entries))
    gallery = sorted({e[k] for e in entries for k in ("candidate", "target")})
    (root / "image_splits/split.dress.val.json").write_text(json.dumps(gallery))
    with Project.create(tmp_path / "imported") as project:
        import_fashioniq(project, root)
    assert window.open_project(tmp_path / "imported")
    window.show_pane(5)
    qtbot.waitUntil(lambda: bool(window.panes[5].charts.panel_texts()))  # once the window painted
    texts = window.panes[5].charts.panel_texts()
    assert "No captions submitted yet" not in texts["captions"]
    assert "12 captions, all imported" in texts["captions"]
    # Legends: with captions, labels and ratings drawn, each legend lies inside its axes.
    assert window.open_project(demo_project_dir)
    fill_showcase(window.workspace.project, captions=8)
    charts = window.panes[5].charts
    charts.refresh(window.workspace.project)
    figure = charts.canvas.figure
    renderer = charts.canvas.get_renderer()
    legends = 0
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        legends += 1
        box, frame = legend.get_window_extent(renderer), axes.get_window_extent(renderer)
        assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1, axes.get_title()
        assert frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, axes.get_title()
    assert legends >= 2


def test_dashboard_charts_show_captions_labels_and_ratings(
    window, demo_project_dir, qtbot
) -> None:
    from studio.demo.showcase import fill_showcase

    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Dashboard")
    qtbot.waitUntil(lambda: bool(pane.charts.panel_texts()))  # drawn once the window painted
    texts = pane.charts.panel_texts()
    assert "No captions submitted yet" in texts["captions"]
    assert "No attribute labels yet" in texts["labels"]
    assert "No ratings assigned yet" in texts["ratings"]
    fill_showcase(window.workspace.project, captions=8)
    pane.refresh(window.workspace.project)  # project events call this when something changes
    texts = pane.charts.panel_texts()
    assert texts["captions"] == "Captions per day per annotator"
    assert "Labels decided per type" in texts["labels"] and "undecided" in texts["labels"]
    assert "8 / 18" in texts["ratings"]
    captions_axes = pane.charts.canvas.figure.axes[0]
    assert sorted(p.get_height() for p in captions_axes.patches) == [4, 4]
    qtbot.waitUntil(pane.charts.canvas.isVisible)  # Qt shows a widget added to a shown one


def test_a_project_opened_on_another_pane_draws_its_charts_when_the_dashboard_shows(
    window, demo_project_dir, qtbot
) -> None:
    """Drawing the charts is most of what opening a small project costs the window (0.4 s
    of matplotlib): a project opened, or a pane chosen at once, while the Dashboard is not
    shown draws nothing until it shows, and then shows this project's figures."""
    from studio.demo.showcase import fill_showcase

    pane = show_pane_titled(window, "Dashboard")
    window.show_pane(0)  # Pairs: the Dashboard is hidden
    assert window.open_project(demo_project_dir)
    qtbot.wait(50)  # the window paints; a chart of a hidden pane is not drawn
    assert pane.charts.canvas is None and pane.rank_distribution.canvas is None
    fill_showcase(window.workspace.project, captions=8)  # written while hidden
    qtbot.wait(50)
    assert pane.charts.canvas is None
    show_pane_titled(window, "Dashboard")
    texts = pane.charts.panel_texts()
    assert texts["captions"] == "Captions per day per annotator"
    assert "8 / 18" in texts["ratings"]
    # Opened on the Dashboard and left at once: drawn when it shows again, not before.
    assert window.open_project(demo_project_dir)
    figure = pane.charts.canvas.figure
    drawn = figure.axes[0]
    window.show_pane(0)
    qtbot.wait(50)
    assert figure.axes[0] is drawn
    show_pane_titled(window, "Dashboard")
    assert figure.axes[0] is not drawn
