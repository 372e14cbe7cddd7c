"""A project whose pictures went missing: the window says so when it opens, and Set Image
Folder… brings the pictures of the pair on screen back in place."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.async_helpers import run_until
from tests.gui.window_panes import show_pane_titled


def test_a_project_file_copied_alone_says_its_pictures_are_missing_until_the_folder_is_set(
    window, demo_project_dir, tmp_path, event_loop_qt
) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
        original = project.path
    alone = tmp_path / "elsewhere" / "project.cirdb"
    alone.parent.mkdir()
    shutil.copy(original, alone)  # the pictures stay behind
    window.workspace.settings.user_name = "ana"
    assert window.open_project(alone)
    banner = window.image_folder
    run_until(event_loop_qt, lambda: banner.banner.isVisible())
    assert banner.banner_text.text() == (
        f"60 of 60 pictures are missing (looked in {alone.parent})")
    assert banner.banner_button.text() == "Set Image Folder…"
    captions = next(pane for pane in window.panes if pane.title == "Captions")
    window.show_pane(window.panes.index(captions))
    run_until(event_loop_qt, lambda: captions.writer.pair_id is not None)  # the queue answered
    pair = captions.writer.pair_id
    assert not Path(captions.view.reference.path).is_file()
    window.image_folder.choose(demo_project_dir)  # what the file dialog would return
    run_until(event_loop_qt, lambda: "pictures found" in window.image_folder.last_message)
    run_until(event_loop_qt, lambda: Path(captions.view.reference.path).is_file())
    assert Path(captions.view.target.path).is_file()
    assert captions.writer.pair_id == pair  # the same pair, its pictures now shown
    assert not banner.banner.isVisible()


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
    retrieval = show_pane_titled(window, "Retrieval")
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
    captions = show_pane_titled(window, "Captions")  # the writer's queue has answered
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
