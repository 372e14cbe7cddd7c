"""Imported pictures are stored relative to the project's image root: a folder is stored by
where it really is (its links resolved), a picture that is itself a link as the link, and
a folder beside the root with '../' steps. One import resolves each folder once."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.importers.plan import ImagePaths, relative_image_path
from studio.store import Project


@pytest.fixture
def project(tmp_path: Path):
    (tmp_path / "images").mkdir()
    with Project.create(tmp_path / "p.cirstudio", "paths", tmp_path / "images") as opened:
        yield opened


def test_pictures_inside_beside_and_under_the_root(project: Project, tmp_path: Path) -> None:
    paths = ImagePaths(project)
    (tmp_path / "images" / "dress").mkdir()
    assert paths.relative(tmp_path / "images" / "a.jpg") == "a.jpg"
    assert paths.relative(tmp_path / "images" / "dress" / "b.jpg") == "dress/b.jpg"
    assert paths.relative(tmp_path / "other" / "c.jpg") == "../other/c.jpg"
    assert paths.relative(tmp_path / "images" / "dress") == "dress"


def test_a_linked_folder_is_stored_where_it_leads_and_a_linked_picture_as_the_link(
    project: Project, tmp_path: Path
) -> None:
    real = tmp_path / "images" / "real"
    real.mkdir()
    (tmp_path / "shortcut").symlink_to(real)
    (real / "picture.jpg").write_bytes(b"x")
    (real / "alias.jpg").symlink_to(real / "picture.jpg")
    paths = ImagePaths(project)
    assert paths.relative(tmp_path / "shortcut" / "alias.jpg") == "real/alias.jpg"
    assert relative_image_path(project, tmp_path / "shortcut" / "alias.jpg") == "real/alias.jpg"


def test_every_picture_of_a_folder_gets_the_same_answer_as_alone(
    project: Project, tmp_path: Path
) -> None:
    folder = tmp_path / "images" / "many"
    folder.mkdir()
    files = [folder / f"{n}.jpg" for n in range(50)] + [tmp_path / "x" / ".." / "y.jpg"]
    paths = ImagePaths(project)
    assert [paths.relative(f) for f in files] == [relative_image_path(project, f) for f in files]
    assert paths.relative(files[0]) == "many/0.jpg"
    assert paths.relative(files[-1]) == "../y.jpg"


def test_an_import_skips_pictures_under_a_folder_link_that_leads_outside(tmp_path: Path) -> None:
    from studio.importers.image_files import screen_files

    root = tmp_path / "images"
    (root / "inside").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "out").symlink_to(tmp_path / "elsewhere")
    (root / "in").symlink_to(root / "inside")
    files = {f"{folder}-{n}": root / folder / f"{n}.jpg"
             for folder in ("inside", "in", "out") for n in range(3)}
    kept, skipped = screen_files(files, root, lambda path: path.relative_to(root).as_posix())
    assert sorted(kept) == [f"{folder}-{n}" for folder in ("in", "inside") for n in range(3)]
    assert [problem.file for problem in skipped] == ["out/0.jpg", "out/1.jpg", "out/2.jpg"]
    assert all("outside" in problem.message for problem in skipped)
