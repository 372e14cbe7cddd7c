"""Missing picture files (issue #27 D6): the index counts them as skipped and, when there
are none at all, refuses saying why and where to get them; Set image folder finds them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.picture_files import check_picture_files, picture_count, set_image_folder
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
    assert f"5 skipped (5 pictures not found under {demo_project_dir})" in prepared.summary()


def test_pictures_gone_since_the_import_are_skipped_with_the_reason(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    """The import found every picture; five went since: the build says why it skipped."""
    images = demo_project_dir / "images"
    for path in sorted(images.iterdir())[:5]:
        shutil.move(path, tmp_path / path.name)
    with Project.open(demo_project_dir) as project:
        assert picture_count(project).missing == 0  # as the import left it
        prepared = prepare_retrieval(project, "demo", "cpu", actor="ana")
    assert prepared.index.indexed == 55
    assert f"5 skipped (5 pictures not found under {demo_project_dir})" in prepared.summary()


def test_a_project_file_copied_alone_finds_its_pictures_missing_and_caches_the_check(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "elsewhere" / "project.cirdb"
    alone.parent.mkdir()
    with Project.open(demo_project_dir) as project:
        shutil.copy(project.path, alone)
    with Project.open(alone) as project:
        steps: list[tuple[int, int]] = []
        check = check_picture_files(project, progress=lambda d, t, _m="": steps.append((d, t)))
        assert (check.images, check.missing, check.from_cache) == (60, 60, False)
        assert steps and steps[-1] == (60, 60)
        assert check.message() == (
            f"60 of 60 pictures are missing (looked in {tmp_path / 'elsewhere'})")
        again = check_picture_files(project)  # opened again: nothing on disk changed
        assert (again.missing, again.from_cache) == (60, True)
        (tmp_path / "elsewhere" / "images").mkdir()  # the demo stores images/NAME.jpg
        shutil.copy(next((demo_project_dir / "images").iterdir()), tmp_path / "elsewhere" / "images")
        fresh = check_picture_files(project)  # the folder changed: checked again
        assert (fresh.missing, fresh.from_cache) == (59, False)
    with Project.open(demo_project_dir) as project:
        whole = check_picture_files(project)
        assert whole.missing == 0 and whole.message() == ""


def test_the_picture_check_can_be_cancelled(demo_project_dir: Path) -> None:
    from studio.jobs import CancelToken, JobCancelled

    token = CancelToken()
    token.cancel()
    with Project.open(demo_project_dir) as project, pytest.raises(JobCancelled):
        check_picture_files(project, cancel=token, batch=10)


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
