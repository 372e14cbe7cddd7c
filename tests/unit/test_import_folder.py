"""Importing a folder of images with product metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from studio.cli.main import main
from studio.errors import ValidationError
from studio.hashing import file_digest
from studio.importers import import_folder
from studio.store import Project


def make_folder(root: Path) -> Path:
    (root / "more").mkdir(parents=True)
    Image.new("RGB", (30, 40), "red").save(root / "d1.jpg")
    Image.new("RGB", (50, 20), "blue").save(root / "d2.jpg")
    Image.new("RGB", (10, 10), "green").save(root / "more" / "s1.png")
    (root / "notes.txt").write_text("not an image")
    return root


CSV = (
    "id,title,description,category,split,price\n"
    "d1,Red Maxi Dress,Long and red,dress,train,10\n"
    "d2,Blue Mini Dress,,dress,val,12\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    with Project.create(tmp_path / "project", image_root=tmp_path / "photos") as opened:
        yield opened


def test_images_are_hashed_sized_and_described(project, tmp_path) -> None:
    folder = make_folder(tmp_path / "photos")
    (folder / "metadata.csv").write_text(CSV)
    report = import_folder(project, folder)
    assert report.images_added == 3
    d1 = project.image("d1")
    assert (d1.title, d1.description, d1.category, d1.split) == (
        "Red Maxi Dress",
        "Long and red",
        "dress",
        "train",
    )
    assert (d1.width, d1.height, d1.path) == (30, 40, "d1.jpg")
    assert d1.content_hash == file_digest(folder / "d1.jpg")
    s1 = project.image("s1")
    assert (s1.path, s1.category) == ("more/s1.png", "")
    assert report.groups[("dress", "val")]["gallery"] == 1


def test_json_metadata_and_reimport_adds_nothing(project, tmp_path) -> None:
    folder = make_folder(tmp_path / "photos")
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps([{"id": "s1", "title": "White Shirt", "category": "shirt"}]))
    import_folder(project, folder, meta)
    assert project.image("s1").title == "White Shirt"
    again = import_folder(project, folder, meta)
    assert again.images_added == 0 and project.count_images() == 3


@pytest.mark.parametrize(
    "metadata, expected",
    [
        ("id,title\nd1,A\nd1,B\n", "metadata.csv entry [1] (d1): duplicate id, first at entry [0]"),
        ("id,title\nzz,A\n", "metadata.csv entry [0] (zz): unknown id"),
        ("name,title\nd1,A\n", "metadata.csv: has no 'id' column"),
    ],
)
def test_bad_metadata_is_refused(project, tmp_path, metadata, expected) -> None:
    folder = make_folder(tmp_path / "photos")
    (folder / "metadata.csv").write_text(metadata)
    with pytest.raises(ValidationError) as error:
        import_folder(project, folder)
    assert expected in str(error.value)
    assert project.count_images() == 0


def test_two_files_with_one_id_are_refused_unless_skipped(project, tmp_path) -> None:
    folder = make_folder(tmp_path / "photos")
    Image.new("RGB", (8, 8)).save(folder / "more" / "d1.png")
    with pytest.raises(ValidationError, match=r"more/d1\.png \(d1\): same id as d1\.jpg"):
        import_folder(project, folder)
    report = import_folder(project, folder, skip_invalid=True)
    assert report.images_added == 3 and len(report.problems) == 1


def test_command_line_creates_the_project_over_the_folder(tmp_path, capsys) -> None:
    folder = make_folder(tmp_path / "photos")
    assert main(["import", "folder", str(folder), "--project", str(tmp_path / "p"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["images_added"] == 3
    with Project.open(tmp_path / "p") as project:
        assert project.image_root == folder.resolve()
        assert project.image("d2").path == "d2.jpg"
