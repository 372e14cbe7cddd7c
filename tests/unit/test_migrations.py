"""Schema versions: older files are backed up then migrated; newer ones are refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from studio.errors import SchemaTooNewError
from studio.store import Project
from studio.store.database import connect, migrate
from studio.store.migrations import LATEST_VERSION


def make_version_1_project(path: Path) -> None:
    db = connect(path)
    migrate(db, path, target=1)
    db.execute("INSERT INTO meta VALUES ('name', 'Old project')")
    db.execute(
        "INSERT INTO images (id, path, added_at) VALUES ('a', 'a.jpg', '2024-01-01T00:00:00')"
    )
    db.close()


def test_new_projects_are_at_the_latest_schema(tmp_path: Path) -> None:
    with Project.create(tmp_path) as project:
        assert project.schema_version == LATEST_VERSION
        assert project.backup_path is None


def test_an_older_project_is_backed_up_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    make_version_1_project(path)
    with Project.open(path) as project:
        assert project.schema_version == LATEST_VERSION
        assert project.count_images() == 1
        assert project.name == "Old project"
        project.db.execute("SELECT count(*) FROM attribute_vocab").fetchone()  # new table exists
        backup = project.backup_path
    assert backup is not None and backup.exists()
    with sqlite3.connect(backup) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == 1
        assert old.execute("SELECT id FROM images").fetchall() == [("a",)]


@pytest.mark.sqlite_only
def test_a_newer_project_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    Project.create(tmp_path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError, match="newer CIR Studio"):
        Project.open(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("*.bak*")) == []
