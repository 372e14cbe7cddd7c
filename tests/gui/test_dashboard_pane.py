"""The Dashboard pane: charts of captions, labels and ratings, imported captions counted."""

from __future__ import annotations

from studio.store import Project
from tests.gui.window_panes import show_pane_titled


def test_the_dashboard_counts_imported_captions_and_keeps_legends_in_their_charts(
    window, demo_project_dir, tmp_path, fashioniq_fixtures
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


def test_dashboard_charts_show_captions_labels_and_ratings(window, demo_project_dir) -> None:
    from studio.demo.showcase import fill_showcase

    assert window.open_project(demo_project_dir)
    pane = show_pane_titled(window, "Dashboard")
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
    assert pane.charts.canvas.isVisible()
