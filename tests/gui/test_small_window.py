"""At 1024×700, the smallest window we support, every pane shows its widgets whole.

The Retrieval pane (and its Experiments tab) is checked by its own tests (issue 18a).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.demo.showcase import fill_showcase
from studio.store import Project
from tests.gui.async_helpers import run_until
from tests.gui.layout_checks import cut_widgets, fully_visible

SMALL = (1024, 700)


@pytest.fixture(autouse=True)
def settle_before_teardown(qtbot):
    """Resizing redraws matplotlib canvases later (``draw_idle`` timers); let those run
    while the canvases still exist, not in the next test after the window is gone."""
    yield
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(20)


@pytest.fixture
def showcase_dir(demo_project_dir: Path) -> Path:
    with Project.open(demo_project_dir) as project:
        fill_showcase(project)
    return demo_project_dir


def open_small(window, folder: Path, pane_title: str):
    assert window.open_project(folder)
    window.resize(*SMALL)
    window.show_pane(window.pane_titles().index(pane_title))
    for _ in range(3):  # texts set after showing (live ranks) get their layout pass
        QApplication.processEvents()
    assert (window.width(), window.height()) == SMALL, "the window cannot shrink to 1024×700"
    return window.stack.currentWidget()


@pytest.mark.parametrize("title", ["Pairs", "Captions", "Dashboard"])
def test_pane_shows_everything_at_1024x700(window, showcase_dir, title) -> None:
    pane = open_small(window, showcase_dir, title)
    assert cut_widgets(pane) == []


@pytest.mark.parametrize("tab", [0, 1])
def test_attributes_tabs_show_everything_at_1024x700(window, showcase_dir, tab) -> None:
    pane = open_small(window, showcase_dir, "Attributes")
    pane.tabs.setCurrentIndex(tab)
    QApplication.processEvents()
    assert cut_widgets(pane) == []


@pytest.mark.parametrize("tab", ["Rate", "Report", "Transactions"])
def test_quality_tabs_show_everything_at_1024x700(window, showcase_dir, tab, event_loop_qt) -> None:
    pane = open_small(window, showcase_dir, "Quality")
    names = [pane.tabs.tabText(i) for i in range(pane.tabs.count())]
    pane.tabs.setCurrentIndex(names.index(tab))
    if tab == "Report":
        run_until(event_loop_qt, lambda: pane.report.report is not None)
    QApplication.processEvents()
    assert cut_widgets(pane) == []


def test_captions_show_the_whole_pictures_at_1024x700(window, showcase_dir) -> None:
    pane = open_small(window, showcase_dir, "Captions")
    for panel in (pane.view.reference, pane.view.target):
        viewport = panel.scroll.viewport()
        picture = panel.picture.pixmap()
        assert not panel.scroll.verticalScrollBar().isVisible()
        assert not panel.scroll.horizontalScrollBar().isVisible()
        assert picture.height() <= viewport.height() and picture.width() <= viewport.width()
        # the image id sits under the frame, not over it
        assert panel.image_id.geometry().top() >= panel.scroll.geometry().bottom()
        assert fully_visible(panel.image_id)


def test_pairs_keeps_the_pair_number_in_view_at_1024x700(window, showcase_dir) -> None:
    pane = open_small(window, showcase_dir, "Pairs")
    table = pane.table
    numbers = table.verticalHeader()
    table.horizontalScrollBar().setValue(table.horizontalScrollBar().maximum())
    QApplication.processEvents()
    assert table.horizontalScrollBar().value() > 0  # the columns did scroll
    assert numbers.isVisible() and fully_visible(numbers)  # the pair numbers did not
    assert [pane.model.headerData(r, Qt.Orientation.Vertical) for r in range(3)] == [
        str(pair_id) for pair_id in pane.model.ids[:3]
    ]
    assert fully_visible(pane.import_button)
    assert pane.import_button.text() == "Import…"


def test_report_chart_texts_are_whole_at_1024x700(window, showcase_dir, event_loop_qt) -> None:
    pane = open_small(window, showcase_dir, "Quality")
    pane.tabs.setCurrentWidget(pane.report)
    run_until(event_loop_qt, lambda: pane.report.report is not None)
    QApplication.processEvents()
    canvas = pane.report.canvas
    canvas.draw()
    figure = canvas.figure
    renderer = canvas.get_renderer()
    axes = figure.axes[0]
    box = figure.bbox
    for text in (axes.yaxis.label, axes.title, *axes.get_xticklabels()):
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text()
        assert box.y0 <= extent.y0 and extent.y1 <= box.y1, text.get_text()
    legend = axes.get_legend().get_window_extent(renderer)
    assert legend.x1 <= box.x1
    # the table's columns all fit without scrolling sideways
    assert not pane.report.table.horizontalScrollBar().isVisible()
