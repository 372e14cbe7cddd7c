"""The store's own errors: the same refusal is the same studio error on both engines.

Run on SQLite by default and on PostgreSQL with ``CIR_STUDIO_TEST_ENGINE=postgresql``: a
broken rule is ``RecordRejected`` naming the rule (the index or constraint, by one name on
both engines) and the table; a busy project, a read-only one and an unreachable server are
the store's errors too; none of them is a ``sqlite3`` or ``psycopg`` type.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studio.errors import ProjectBusyError, ProjectError
from studio.store import Project
from studio.store.errors import RecordRejected, StatementFailed, StoreError, StoreUnreachable
from studio.store.records import ImageRecord
from studio.store.repos import captions as captions_repo


def project_with_pair(path: Path) -> tuple[Project, int, int]:
    project = Project.create(path)
    project.add_images(
        ImageRecord(id=f"im{i}", path=f"im{i}.jpg", category="dress", split="train")
        for i in range(2)
    )
    with project.writing("pairs"):
        pair_id = project.db.execute(
            "INSERT INTO pairs (reference_id, target_id, category, split, external_key, "
            "created_at) VALUES ('im0', 'im1', 'dress', 'train', 'k', 'now') RETURNING id"
        ).fetchone()[0]
    person = project.ensure_person("ann")
    return project, int(pair_id), person.id


def test_a_second_draft_of_one_person_and_pair_names_its_rule(tmp_path: Path) -> None:
    project, pair_id, ann = project_with_pair(tmp_path / "p")
    with project:
        with project.writing("captions"):
            captions_repo.write_draft(project, pair_id, ann, "is red", "now")
        with pytest.raises(RecordRejected) as refused, project.writing("captions"):
            project.db.execute(
                "INSERT INTO captions (pair_id, position, text, author_id, status, "
                "created_at, updated_at) VALUES (:pair_id, 1, 'is blue', :ann, 'draft', 'x', 'x')",
                {"pair_id": pair_id, "ann": ann},
            )
        assert refused.value.rule == "captions_one_draft"
        assert refused.value.table == "captions"
        assert not isinstance(refused.value, sqlite3.Error)
        assert isinstance(refused.value, ProjectError)  # one line at the edge
        texts = [row["text"] for row in captions_repo.pair_caption_rows(project, pair_id)]
        assert texts == ["is red"]  # nothing of the refused change was kept


def test_a_duplicate_identity_names_its_rule(tmp_path: Path) -> None:
    project, pair_id, _ = project_with_pair(tmp_path / "p")
    with project:
        uid = project.db.execute("SELECT uid FROM pairs WHERE id = :pair_id", {
            "pair_id": pair_id,
        }).fetchone()[0]
        with pytest.raises(RecordRejected) as twice, project.writing("people"):
            project.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES ('ann', 'annotator', 'x')"
            )
        assert (twice.value.rule, twice.value.table) == ("people_name_key", "people")
        with pytest.raises(RecordRejected) as copied, project.writing("pairs"):
            project.db.execute(
                "INSERT INTO pairs (reference_id, target_id, category, split, external_key, "
                "created_at, uid) VALUES ('im1', 'im0', 'dress', 'train', 'k2', 'now', :uid)",
                {"uid": uid},
            )
        assert (copied.value.rule, copied.value.table) == ("pairs_uid", "pairs")


def test_a_missing_reference_and_a_bad_statement_are_store_errors(tmp_path: Path) -> None:
    project, _, _ = project_with_pair(tmp_path / "p")
    with project:
        with pytest.raises(RecordRejected), project.writing("pairs"):
            project.db.execute(
                "INSERT INTO pairs (reference_id, external_key, created_at) "
                "VALUES ('nope', 'k3', 'now')"
            )
        with pytest.raises(StatementFailed, match="no_such_table"):
            project.db.execute("SELECT * FROM no_such_table")


@pytest.mark.sqlite_only
def test_a_busy_sqlite_project_is_the_busy_error(tmp_path: Path) -> None:
    project, _, _ = project_with_pair(tmp_path / "p")
    other = sqlite3.connect(project.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        with project:
            project.db.conn.execute("PRAGMA busy_timeout = 50")  # dialect: sqlite
            with pytest.raises(ProjectBusyError) as busy:
                project.ensure_person("bob")
            assert isinstance(busy.value, StoreError)
            assert not isinstance(busy.value, sqlite3.Error)
            assert "another program is writing" in str(busy.value)
    finally:
        other.rollback()
        other.close()


def test_an_unreachable_postgresql_server_is_the_unreachable_error() -> None:
    with pytest.raises(StoreUnreachable, match="Cannot reach the PostgreSQL project"):
        Project.open("postgresql://cir@127.0.0.1:1/nothing")


def test_the_command_line_says_unreachable_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "studio", "stats", "--project", "postgresql://cir@127.0.0.1:1/x"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Cannot reach the PostgreSQL project" in lines[0], lines
    assert "Traceback" not in result.stderr
