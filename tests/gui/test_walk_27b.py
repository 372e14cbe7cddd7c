"""A new user's walk, issue #27 (items D4, D6, D7/D8, D10, D11, D19): each test failed on
97b4282 and describes what the person sees now."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.async_helpers import run_until


def pane_titled(window, title: str):
    return next(pane for pane in window.panes if pane.title == title)


def show(window, title: str):
    pane = pane_titled(window, title)
    window.show_pane(window.panes.index(pane))
    return pane


def as_read_only(project: Project) -> None:
    """What Project.open finds for a file the user may not write. The tests run as root,
    whom permissions do not stop, so the test says it; tests/reliability runs the same
    refusal as an unprivileged user on a chmod'ed folder."""
    project.read_only_reason = "the file is read-only"
    project.db.execute("PRAGMA query_only = ON")


# -- D4: a read-only project offers nothing that writes ----------------------------------


def test_read_only_project_offers_no_index_build_and_says_why(window, demo_project_dir) -> None:
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    retrieval = show(window, "Retrieval")
    retrieval.show_project(window.workspace.project)
    assert not retrieval.build_button.isEnabled()
    assert "read-only" in retrieval.build_button.toolTip()
    assert "read-only" in retrieval.loader_text.text()


def test_read_only_project_captions_do_not_offer_a_build(
    window, demo_project_dir, qtbot
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    assert window.open_project(demo_project_dir)
    as_read_only(window.workspace.project)
    captions = show(window, "Captions")
    view = captions.rank_view
    captions.writer.editor.setFocus()
    qtbot.keyClicks(captions.writer.editor, "is red")
    qtbot.waitUntil(lambda: view.build_button.isVisible(), timeout=30000)
    assert not view.build_button.isEnabled()
    assert "read-only" in view.build_button.toolTip()
    assert "read-only" in view.line.text() and "Building" not in view.line.text()


# -- D7/D8: chat mode --------------------------------------------------------------------


def open_retrieval(window, event_loop_qt, project_dir):
    assert window.open_project(project_dir)
    pane = show(window, "Retrieval")
    event_loop_qt.run_until_complete(pane.load_context())
    assert pane.session is not None, pane.loader_text.text()
    return pane


def type_turn(pane, qtbot, event_loop_qt, text: str) -> None:
    before = pane.timeline.count()
    pane.text.clear()
    qtbot.keyClicks(pane.text, text)
    qtbot.keyClick(pane.text, Qt.Key.Key_Return)
    run_until(event_loop_qt, lambda: pane.timeline.count() == before + 1)


def chips(pane) -> list:
    items = (pane.chips_row.itemAt(i).widget() for i in range(pane.chips_row.count()))
    return [widget for widget in items if widget is not None]


def test_after_an_answer_chip_the_next_answer_is_typed_in_the_answer_field(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)  # Chat
    window.activateWindow()
    type_turn(pane, qtbot, event_loop_qt, "a dress")
    chip = chips(pane)[0]
    turns = pane.timeline.count()
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)  # the click takes the focus
    run_until(event_loop_qt, lambda: pane.timeline.count() == turns + 1)
    QApplication.processEvents()
    assert QApplication.focusWidget() is pane.text
    qtbot.keyClicks(QApplication.focusWidget(), "red")  # what the person types next
    assert pane.text.text() == "red"


def test_a_new_chat_session_keeps_its_target_hidden(
    window, qtbot, event_loop_qt, indexed_demo_dir
) -> None:
    pane = open_retrieval(window, event_loop_qt, indexed_demo_dir)
    pane.mode.setCurrentIndex(1)
    pane.reveal.setChecked(True)
    assert pane.target_view.isVisible()
    assert "hidden" not in pane.target_label.text()  # not "hidden" beside the picture
    # Before the first turn the target has no rank; it was "not in this gallery" (D8).
    assert "not in this gallery" not in pane.target_text.text()
    assert "no rank before the first turn" in pane.target_text.text()
    pane.new_button.click()
    QApplication.processEvents()
    assert not pane.reveal.isChecked()
    assert not pane.target_view.isVisible() and not pane.target_text.isVisible()
    assert pane.target_label.text() == "Target: hidden"


# -- D6: a project whose picture files are missing ----------------------------------------


def without_pictures(demo: Path, elsewhere: Path) -> Path:
    """The demo as a Fashion IQ import leaves it: every picture file missing. Returns the
    folder that does hold them."""
    from studio.picture_files import set_image_folder

    with Project.open(demo) as project:
        mine_pairs(project, "tfidf", 4)
    shutil.move(demo / "images", elsewhere / "images")  # paths are stored as images/NAME
    with Project.open(demo) as project:
        set_image_folder(project, demo, "importer")  # what the import found
    return elsewhere


def test_missing_pictures_are_explained_and_the_image_folder_can_be_set(
    window, demo_project_dir, tmp_path, event_loop_qt
) -> None:
    pictures = without_pictures(demo_project_dir, tmp_path)
    assert window.open_project(demo_project_dir)
    retrieval = show(window, "Retrieval")
    text = retrieval.loader_text.text()
    assert "60 images" in text and "no picture files" in text and "asin2url" in text
    assert not retrieval.build_button.isEnabled()  # "Index ready: 0 images" no more
    assert retrieval.folder_button.isVisible()
    window.image_folder.choose(pictures)  # what the file dialog would return
    run_until(event_loop_qt, lambda: "pictures found" in window.image_folder.last_message)
    assert "60 of 60 pictures found" in window.image_folder.last_message
    run_until(event_loop_qt, lambda: retrieval.build_button.isEnabled())
    assert "no index for 'demo' yet" in retrieval.loader_text.text()
    assert not retrieval.folder_button.isVisible()


def test_a_pair_whose_pictures_are_missing_says_so(window, demo_project_dir, tmp_path) -> None:
    from studio.captions.store import submit_caption

    without_pictures(demo_project_dir, tmp_path)
    with Project.open(demo_project_dir) as project:
        submit_caption(project, 1, "bob", "is red")  # something to review
    window.workspace.settings.user_name = "ana"
    assert window.open_project(demo_project_dir)
    captions = show(window, "Captions")
    info = captions.writer.info.text()
    assert not info.startswith("All done")  # 4 pairs wait: their pictures are missing
    assert "4 pairs" in info and "missing" in info and "Set image folder" in info
    captions.set_mode(1)  # review: the pair is shown, pictures or not
    view = captions.view
    reference = view.reference.shown_id
    assert reference and view.reference.missing
    assert view.notice.isVisible() and reference in view.notice.text()
    assert "Set image folder" in view.notice.text()
    drawn = view.reference.picture.pixmap().toImage()
    assert drawn.pixelColor(2, 2).name() == "#eceef1"  # the grey placeholder, with its id


# -- D10: --demo on a fresh install --------------------------------------------------------


def test_demo_on_first_use_shows_the_window_at_once_and_draws_the_demo_as_a_job(qapp) -> None:
    """`cir-studio --demo` with no demo yet: the window is there while the demo is drawn,
    with progress and Cancel in its status bar (it drew 22 s in the terminal first)."""
    from PySide6.QtCore import QTimer

    from studio.cli.gui_launch import launch_gui
    from studio.cli.main import build_parser
    from studio.settings import demo_project_dir
    from widgets.main_window import MainWindow

    seen: dict[str, object] = {}
    before = set(QApplication.topLevelWidgets())  # windows earlier tests left to Qt
    deadline = time.monotonic() + 30

    def look() -> None:
        shown = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, MainWindow) and w.isVisible() and w not in before]
        window = shown[0] if shown else None
        jobs = [handle.label for handle in window.runner.running.values()] if window else []
        if window is None or (not jobs and time.monotonic() < deadline):
            QTimer.singleShot(200, look)  # the window may still be starting
            return
        seen.update(jobs=jobs, cancel=window.job_status.cancel_button.isVisible(),
                    demo_drawn=(demo_project_dir() / "project.cirdb").exists())
        window.job_status.cancel_button.click()  # the person may stop it
        QTimer.singleShot(300, window.close)

    QTimer.singleShot(200, look)
    assert launch_gui(build_parser().parse_args(["--demo"])) == 0
    assert seen["jobs"] == ["Creating the demo project"]
    assert seen["cancel"] is True
    assert seen["demo_drawn"] is False  # still being drawn while the window shows


# -- D19: dialogs open where the person last was; the window comes back as it was ---------


def test_file_dialogs_open_in_the_last_folder_used(
    window, demo_project_dir, tmp_path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    asked: list[tuple[str, str]] = []

    def dialog(answer):
        def ask(_parent, title, folder="", *_rest):
            asked.append((title, str(folder)))
            return answer
        return ask

    project_file = str(demo_project_dir / "project.cirdb")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog((project_file, "")))
    window.open_project_dialog()
    assert asked[-1][1] != ""  # not the process's working directory
    assert window.workspace.project is not None
    elsewhere = tmp_path / "new-project"
    elsewhere.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", dialog(""))
    window.new_project()  # cancelled at once; where did it start?
    assert asked[-1] == ("Folder for the new project", str(demo_project_dir))
    from widgets.quality_report_view import QualityReportView

    view = show(window, "Quality").findChild(QualityReportView)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog(("", "")))
    view._ask("Export the table as CSV", "CSV (*.csv)", ".csv")
    assert Path(asked[-1][1]).parent == demo_project_dir  # the folder last used
    # and it is remembered for the next start of the studio
    from studio.settings import Settings

    assert Settings.load().last_folder == str(demo_project_dir)


def test_the_window_comes_back_with_its_size_place_and_pane(workspace, qtbot) -> None:
    from studio.workspace import Workspace
    from widgets.main_window import MainWindow

    first = MainWindow(workspace)
    qtbot.addWidget(first)
    first.show()
    # Offscreen, the screen is 800 px wide and Qt keeps a restored window on it: use the
    # window's narrowest width (it opens at 1280 x 820 by default).
    size = (first.minimumWidth(), 700)
    first.resize(*size)
    first.show_pane(3)
    first.close()
    second = MainWindow(Workspace())  # a new start: settings read from disk
    qtbot.addWidget(second)
    second.show()
    assert (second.width(), second.height()) == size
    assert second.navigation.currentRow() == 3
    assert second.stack.currentWidget() is second.panes[3]
    second.services.shutdown()
    first.services.shutdown()


# -- D11: Experiments at 1024 x 700 --------------------------------------------------------


def test_two_runs_of_one_strategy_are_told_apart_and_nothing_is_cut_at_1024x700(
    window, indexed_demo_dir, event_loop_qt
) -> None:
    window.resize(1024, 700)
    assert window.open_project(indexed_demo_dir)
    pane = show(window, "Retrieval")
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
