"""Missing picture files (issue #27 D6): the index counts them as skipped and, when there
are none at all, refuses saying why and where to get them; Set image folder finds them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.picture_files import picture_count, set_image_folder
from studio.sessions.preparation import prepare_retrieval
from studio.store import Project


def test_missing_pictures_are_skipped_and_counted(demo_project_dir: Path, tmp_path: Path) -> None:
    images = demo_project_dir / "images"
    moved = sorted(images.iterdir())[:5]
    for path in moved:
        shutil.move(path, tmp_path / path.name)
    with Project.open(demo_project_dir) as project:
        count = set_image_folder(project, demo_project_dir, "ana")  # what an import finds
        assert (count.images, count.missing) == (60, 5)
        prepared = prepare_retrieval(project, "demo", "cpu", actor="ana")
    assert prepared.index.indexed == 55 and prepared.index.missing == 5
    assert "5 skipped (5 without a picture file)" in prepared.summary()


def test_no_pictures_at_all_is_refused_with_the_reason_and_a_way_out(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    pictures = tmp_path / "pictures"  # the demo stores paths as images/NAME.jpg
    shutil.move(demo_project_dir / "images", pictures / "images")
    with Project.open(demo_project_dir) as project:
        set_image_folder(project, demo_project_dir, "ana")  # what an import finds
        with pytest.raises(StudioError) as refused:
            prepare_retrieval(project, "demo", "cpu", actor="ana")
        message = str(refused.value)
        assert "60 images" in message and "no picture files" in message
        assert str(demo_project_dir) in message
        assert "asin2url" in message and "Set image folder" in message
        found = set_image_folder(project, pictures, "ana")
        assert (found.present, found.missing) == (60, 0)
        assert picture_count(project).root == pictures.resolve()
        assert project.image_path(project.image("dress-00000")).is_file()
        assert prepare_retrieval(project, "demo", "cpu", actor="ana").index.indexed == 60
    with Project.open(demo_project_dir) as project:  # kept: one change, stored
        assert picture_count(project).missing == 0
        assert project.audit_trail("images", "image_root")[-1]["action"] == "set_image_folder"
