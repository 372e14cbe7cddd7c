"""At 1024×700, the smallest window we support, every pane shows its widgets whole.

The Retrieval pane (and its Experiments tab) is checked by its own tests (issue 18a).
"""

from __future__ import annotations

import shutil
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


@pytest.fixture(scope="module")
def showcase_template(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo filled as the showcase once (labels, transactions, ratings: 0.9 s)."""
    folder = tmp_path_factory.mktemp("showcase") / "demo"
    shutil.copytree(demo_template, folder)
    with Project.open(folder) as project:
        fill_showcase(project)
    return folder


@pytest.fixture
def showcase_dir(showcase_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "showcase"
    shutil.copytree(showcase_template, target)
    return target


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


@pytest.mark.parametrize("tab", [0, 1, 3])
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


# -- no text sets the window's width --------------------------------------------------------

FIQ_PATH = ("/home/ana/datasets/fashion-iq/fashion-iq-2019-release-with-all-splits/"
            "captions/cap.dress.train.with-the-long-b00a0i8v1w-b00byjvkfe-names.json")
LONG_MESSAGE = (f"Cannot import {FIQ_PATH}: entry 1,842 names the candidate B00A0I8V1W, "
                "which is not in image_splits/split.dress.train.json")
TEAM_LINE = ("The team server does not answer: your edits wait on this computer, and your "
             "next pair comes as soon as it answers. https://team.fashion-lab.example.org:8443/"
             "projects/fashion-iq-dress-and-toptee-round-2")

# The labels each pane shows messages, paths and server lines in: (pane, tab, attributes).
MESSAGE_LABELS = [
    ("Pairs", None, ["message", "no_match", "view.notice",
                     "view.reference.image_id", "view.target.image_id"]),
    ("Captions", None, ["view.reference.image_id", "view.target.image_id", "view.notice",
                        "writer.info", "writer.state", "reviewer.info", "reviewer.state",
                        "progress.summary", "team_label"]),
    ("Attributes", 0, ["summary", "single.position", "single.message"]),
    ("Attributes", 1, ["summary", "bulk.count", "bulk.message", "bulk.empty"]),
    ("Attributes", 2, ["summary", "outfits.position", "outfits.message"]),
    ("Retrieval", 1, ["experiments.message", "experiments.sample_dialogs"]),
    ("Quality", 0, ["rating.progress", "rating.message"]),
    ("Quality", 1, ["report.status", "report.notes"]),
    ("Dashboard", None, ["heading"]),
]


def attribute(root, path: str):
    for name in path.split("."):
        root = getattr(root, name)
    return root


@pytest.mark.parametrize(("title", "tab", "names"), MESSAGE_LABELS,
                         ids=[f"{t}-{tab}" for t, tab, _ in MESSAGE_LABELS])
def test_long_messages_do_not_widen_the_window(
    window, showcase_dir, event_loop_qt, title, tab, names
) -> None:
    pane = open_small(window, showcase_dir, title)
    if tab is not None:
        pane.tabs.setCurrentIndex(tab)
    # The pane's own jobs (a quality report) end first: their progress would change the
    # status bar's texts between the layout pass and the checks below.
    run_until(event_loop_qt, lambda: not window.runner.running)
    labels = [attribute(pane, name) for name in names]
    labels += [window.project_label, window.job_status.label, window.team_status]
    for number, label in enumerate(labels):
        label.setText((TEAM_LINE if number % 2 else LONG_MESSAGE) + f" ({number})")
        label.show()
    window.job_status.show()
    window.job_status.eta.setText("00:00 left")  # a job's time left, always (a real job's
    window.job_status.eta.show()  # showed by chance and was cut once: 45 < 58 px)
    for _ in range(3):
        QApplication.processEvents()
    assert window.minimumSizeHint().width() <= SMALL[0]
    window.resize(*SMALL)
    QApplication.processEvents()
    assert (window.width(), window.height()) == SMALL
    assert cut_widgets(pane) == []
    assert cut_widgets(window.statusBar()) == []
    for label in labels:
        assert label.width() <= SMALL[0] - 170, label.text()[:30]


def test_job_progress_says_the_time_left_in_full(window, showcase_dir, qtbot) -> None:
    open_small(window, showcase_dir, "Pairs")
    status = window.job_status
    status._on_started(7, "Fetching pictures")
    status._on_progress(7, 1, 400, f"{FIQ_PATH} (1 of 400)")
    for _ in range(3):
        QApplication.processEvents()
    # the progress bar's own text is the percentage alone (styles that draw it beside the
    # bar give it room for "100%" only); the time left is a label of its own, shown whole
    assert "left" not in status.bar.text()
    assert status.eta.text().endswith("left") and status.eta.isVisible()
    assert status.eta.width() >= status.eta.sizeHint().width()
    assert cut_widgets(window.statusBar()) == []
