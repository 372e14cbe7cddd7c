"""``project copy`` / ``project check``: a project moves SQLite → PostgreSQL → SQLite intact."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import ProjectError
from studio.jobs import CancelToken, JobCancelled
from studio.store import Project
from studio.store.transfer import check_projects, copy_project


def _annotate(folder: Path) -> None:
    """Captions, an audit trail and a rating-free edit, so the copy has something to carry."""
    from studio.captions.store import save_draft, submit_caption
    from studio.pairs.mining import mine_pairs

    with Project.open(folder) as project:
        mine_pairs(project, "tfidf", 5)
        pair = project.db.execute("SELECT id FROM pairs ORDER BY id LIMIT 1").fetchone()[0]
        save_draft(project, pair, "ann", "is darker")
        submit_caption(project, pair, "bob", "has long sleeves")


def test_round_trip_through_postgresql_is_identical(
    demo_project_dir: Path, postgresql_url: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    _annotate(demo_project_dir)
    counts = copy_project(demo_project_dir, postgresql_url)
    assert counts["images"] == 60 and counts["captions"] >= 2 and counts["audit_log"] >= 2
    back = tmp_path / "back" / "project.cirdb"
    assert main(["project", "copy", postgresql_url, str(back)]) == 0
    assert check_projects(demo_project_dir, postgresql_url) == []
    assert main(["project", "check", str(demo_project_dir), str(back)]) == 0
    assert "identical" in capsys.readouterr().out
    with Project.open(postgresql_url) as moved:  # the copy is a working project
        assert moved.image_root == Project.open(demo_project_dir).image_root
        moved.ensure_person("new annotator")  # ids continue after the copied ones
    assert main(["project", "check", str(demo_project_dir), postgresql_url]) == 1
    assert "people" in capsys.readouterr().out


def test_copy_refuses_a_non_empty_destination(
    demo_project_dir: Path, postgresql_url: str, tmp_path: Path
) -> None:
    copy_project(demo_project_dir, postgresql_url)
    with pytest.raises(ProjectError, match="not empty"):
        copy_project(demo_project_dir, postgresql_url)
    with pytest.raises(ProjectError, match="already exists"):
        copy_project(demo_project_dir, demo_project_dir)


def test_cancelled_copy_leaves_nothing(
    demo_project_dir: Path, postgresql_url: str, tmp_path: Path
) -> None:
    cancel = CancelToken()

    def progress(done: int, total: int, message: str = "") -> None:
        if message == "images":
            cancel.cancel()

    target = tmp_path / "out" / "project.cirdb"
    for destination in (postgresql_url, target):
        with pytest.raises(JobCancelled):
            copy_project(demo_project_dir, destination, progress, cancel)
        cancel = CancelToken()
    assert not target.exists() and list(target.parent.iterdir()) == []
    copy_project(demo_project_dir, postgresql_url)  # still empty, so it can be filled now
    assert check_projects(demo_project_dir, postgresql_url) == []


def test_check_names_each_difference(demo_project_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.cirdb"
    copy_project(demo_project_dir, other)
    with sqlite3.connect(other) as conn:
        conn.execute("UPDATE images SET title = 'changed' WHERE id = (SELECT min(id) FROM images)")
    conn.close()
    differences = check_projects(demo_project_dir, other)
    assert [(d.table, "title: " in d.text) for d in differences] == [("images", True)]


def _import_fixture(name: str, tmp_path: Path) -> Path:
    """A project holding what ``import NAME`` makes of that dataset's real fixture."""
    from tests.conftest import SHARED_FIXTURES

    project = tmp_path / name
    fixtures = SHARED_FIXTURES / name
    if name == "demo-outfits":
        from studio.demo.project import create_demo_project

        create_demo_project(project, n_images=30, seed=0, attributes=False, outfits=12)
        return project
    if not fixtures.is_dir():
        pytest.skip(f"shared {name} fixtures not found at {fixtures}")
    args = ["import", name, str(fixtures), "--project", str(project)]
    if name == "fashionpedia":
        args[2:3] = [str(fixtures / "sample.json"), "--images", str(fixtures / "images")]
    elif name == "circo":  # the importer reads ROOT/annotations/SPLIT.json
        (tmp_path / "circo-root" / "annotations").mkdir(parents=True)
        (tmp_path / "circo-root" / "annotations" / "val.json").write_bytes(
            (fixtures / "val.json").read_bytes()
        )
        args[2] = str(tmp_path / "circo-root")
    assert main(args) == 0
    return project


@pytest.mark.parametrize(
    "dataset", ["fashionpedia", "demo-outfits", "fashioniq", "cirr", "chatir", "circo"]
)
def test_every_importers_project_copies_to_postgresql_and_back(
    dataset: str, postgresql_url: str, tmp_path: Path
) -> None:
    """Garment parts point at their garment in the same table: the copy puts the garment
    first, whatever order the ids came in (the real Fashionpedia sample's sleeves do not)."""
    source = _import_fixture(dataset, tmp_path)
    counts = copy_project(source, postgresql_url)
    if dataset in ("fashionpedia", "demo-outfits"):
        assert counts["outfit_regions"] > 0
    back = tmp_path / "back" / "project.cirdb"
    copy_project(postgresql_url, back)
    assert check_projects(source, postgresql_url) == []
    assert check_projects(source, back) == []
