"""The project store: files, pragmas, images, people, and one audited transaction per edit."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from studio.errors import ProjectError
from studio.store import Project, resolve_project_path
from studio.store.records import ImageRecord


@pytest.fixture
def project(tmp_path: Path):
    with Project.create(tmp_path / "p", name="Test") as project:
        yield project


def test_create_then_open_keeps_name_and_image_root(tmp_path: Path) -> None:
    Project.create(tmp_path / "p", name="Spring", image_root=tmp_path / "p" / "pics").close()
    with Project.open(tmp_path / "p") as project:
        assert project.name == "Spring"
        assert project.image_root == (tmp_path / "p" / "pics").resolve()
        assert project.get_meta("image_root") == "pics"  # stored relative, so the folder moves
        assert project.cache_dir == project.path.with_name("project.cache")


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    Project.create(tmp_path / "p").close()
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(tmp_path / "p")


def test_open_missing_or_foreign_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="does not exist"):
        Project.open(tmp_path / "nothing.cirdb")
    junk = tmp_path / "junk.cirdb"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ProjectError, match="not a CIR Studio project"):
        Project.open(junk)


def test_resolve_project_path_accepts_folder_or_file(tmp_path: Path) -> None:
    assert resolve_project_path(tmp_path) == tmp_path / "project.cirdb"
    assert resolve_project_path(tmp_path / "x.cirdb") == tmp_path / "x.cirdb"


@pytest.mark.sqlite_only
def test_pragmas_are_set_on_every_connection(project: Project) -> None:
    assert project.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert project.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert project.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_foreign_keys_are_enforced(project: Project) -> None:
    from studio.store.errors import RecordRejected

    with pytest.raises(RecordRejected):
        project.db.execute(
            "INSERT INTO pairs (reference_id, external_key, created_at) VALUES ('nope', 'k', 'now')"
        )


def test_adding_the_same_images_twice_creates_no_duplicates(project: Project) -> None:
    images = [ImageRecord(id=f"img{i}", path=f"a/img{i}.jpg", category="dress") for i in range(5)]
    assert project.add_images(images) == 5
    assert project.add_images(images) == 0
    assert project.count_images() == 5
    assert project.count_images(category="dress") == 5
    assert project.image("img3") == images[3]


def test_image_paths_must_be_relative(project: Project) -> None:
    with pytest.raises(ValueError, match="relative"):
        ImageRecord(id="x", path="/abs/x.jpg")


def test_a_change_is_one_transaction_with_one_audit_row(project: Project) -> None:
    project.add_images([ImageRecord(id="a", path="a.jpg", title="Old")])
    with project.change("ana", "edit title", "image", "a", before={"title": "Old"}) as record:
        project.db.execute("UPDATE images SET title = 'New' WHERE id = 'a'")
        record["after"] = {"title": "New"}
    trail = project.audit_trail("image", "a")
    assert [(row["actor"], row["before"], row["after"]) for row in trail] == [
        ("ana", '{"title": "Old"}', '{"title": "New"}')
    ]


def test_a_failed_change_leaves_nothing_behind(project: Project) -> None:
    project.add_images([ImageRecord(id="a", path="a.jpg", title="Old")])
    with pytest.raises(RuntimeError), project.change("ana", "edit", "image", "a"):
        project.db.execute("UPDATE images SET title = 'Half' WHERE id = 'a'")
        raise RuntimeError("crash in the middle")
    assert project.image("a").title == "Old"
    assert project.audit_trail("image", "a") == []


def test_each_thread_gets_its_own_connection_and_sees_committed_writes(project: Project) -> None:
    project.add_images([ImageRecord(id="a", path="a.jpg")])
    seen: list[int] = []

    def worker() -> None:
        project.add_images([ImageRecord(id="b", path="b.jpg")])
        seen.append(project.count_images())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [2]
    assert project.count_images() == 2


def test_people_are_unique_by_name_and_roles_checked(project: Project) -> None:
    first = project.ensure_person("Ana", "annotator")
    assert project.ensure_person("Ana", "annotator") == first
    with pytest.raises(ProjectError, match="Unknown role"):
        project.ensure_person("Bo", "boss")
    assert [p.name for p in project.people()] == ["Ana"]


def test_a_person_added_in_a_rolled_back_change_is_added_again(project: Project) -> None:
    """A person inserted, or first seen, inside a change that is then undone must not be
    remembered: the next caption would name a person id that no longer exists."""
    with pytest.raises(RuntimeError), project.writing("captions"):
        inside = project.ensure_person("Cleo", "annotator")
        assert project.ensure_person("Cleo", "annotator") == inside  # seen again inside
        raise RuntimeError("the caption's rule refused it")
    assert [p.name for p in project.people()] == []
    again = project.ensure_person("Cleo", "annotator")
    assert [p.id for p in project.people()] == [again.id]
    assert project.ensure_person("Cleo", "annotator") == again


def test_unicode_text_round_trips(project: Project) -> None:
    project.add_images([ImageRecord(id="ü-1", path="ü/ß.jpg", title="Robe à fleurs 👗")])
    assert project.image("ü-1").title == "Robe à fleurs 👗"


def test_one_stored_absolute_path_does_not_make_the_catalog_unreadable(
    demo_project_dir: Path,
) -> None:
    """Another program wrote an absolute path into the images table: the catalog still
    reads, and only that image's file is refused, naming it."""
    from studio.errors import ImagePathError

    with Project.open(demo_project_dir) as project:
        victim = next(project.iter_images()).id
        with project.db.atomic():
            project.db.execute("UPDATE images SET path = :path WHERE id = :victim", {
                "path": "/etc/passwd",
                "victim": victim,
            })
        records = list(project.iter_images())
        assert len(records) == project.count_images()
        record = project.image(victim)
        assert record is not None and record.path == "/etc/passwd"
        with pytest.raises(ImagePathError, match=victim):
            project.image_path(record)
        assert project.image_file(record) is None  # views show it as missing
