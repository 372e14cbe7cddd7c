"""A project whose pictures went missing: the window says so when it opens, and Set Image
Folder… brings the pictures of the pair on screen back in place."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.pairs.mining import mine_pairs
from studio.store import Project
from tests.gui.async_helpers import run_until


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
    pair = captions.writing.current
    assert pair is not None
    assert not Path(captions.view.reference.path).is_file()
    window.image_folder.choose(demo_project_dir)  # what the file dialog would return
    run_until(event_loop_qt, lambda: "pictures found" in window.image_folder.last_message)
    run_until(event_loop_qt, lambda: Path(captions.view.reference.path).is_file())
    assert Path(captions.view.target.path).is_file()
    assert captions.writing.current == pair  # the same pair, its pictures now shown
    assert not banner.banner.isVisible()
