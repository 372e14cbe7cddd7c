"""Schema 4: duplicate drafts in an older file are resolved without losing their text,
and the database then refuses a second draft by one person on one pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.store import Project
from studio.store.database import connect, migrate
from studio.store.errors import RecordRejected

DRAFTS = [  # (id, author, text, updated_at)
    (1, 1, "ann's first try", "2025-01-01T10:00:00.000+00:00"),
    (2, 1, "ann's second window", "2025-01-01T10:05:00.000+00:00"),
    (3, 1, "ann's newest text", "2025-01-01T10:09:00.000+00:00"),
    (4, 2, "bob's only draft", "2025-01-01T10:01:00.000+00:00"),
]


def old_project(path: Path) -> Path:
    db = connect(path)
    migrate(db, path, target=3)
    db.execute("INSERT INTO meta VALUES ('name', 'Old')")
    for person, name in ((1, "ann"), (2, "bob")):
        db.execute("INSERT INTO people (id, name, created_at) VALUES (:person, :name, 'x')", {
            "person": person,
            "name": name,
        })
    for image in ("a", "b"):
        db.execute("INSERT INTO images (id, path, added_at) VALUES (:image, :image, 'x')", {"image": image})
    db.execute(
        "INSERT INTO pairs (id, reference_id, target_id, external_key, created_at) "
        "VALUES (1, 'a', 'b', 'k', 'x')"
    )
    for caption_id, author, text, at in DRAFTS:
        db.execute(
            "INSERT INTO captions (id, pair_id, position, text, author_id, status, created_at, "
            "updated_at) VALUES (:caption_id, 1, :caption_id, :text, :author, 'draft', :at, :at)",
            {"caption_id": caption_id, "text": text, "author": author, "at": at},
        )
    db.close()
    return path


def test_duplicate_drafts_keep_the_newest_and_the_others_as_rejected(tmp_path: Path) -> None:
    path = old_project(tmp_path / "project.cirdb")
    with Project.open(path) as project:
        rows = project.db.execute(
            "SELECT id, text, status, reject_reason FROM captions ORDER BY id"
        ).fetchall()
        audit = project.db.execute(
            "SELECT entity_id, actor, before, after FROM audit_log ORDER BY entity_id"
        ).fetchall()
        assert [row[1] for row in rows] == [d[2] for d in DRAFTS]  # no text lost
        assert [row[2] for row in rows] == ["rejected", "rejected", "draft", "draft"]
        assert "newer draft" in rows[0][3]
        assert [(a[0], a[1]) for a in audit] == [("1", "schema 4"), ("2", "schema 4")]
        assert json.loads(audit[0][2])["status"] == "draft"
        assert json.loads(audit[0][3])["status"] == "rejected"
        with pytest.raises(RecordRejected) as refused:
            project.db.execute(
                "INSERT INTO captions (pair_id, text, author_id, status, created_at, "
                "updated_at) VALUES (1, 'third window', 1, 'draft', 'x', 'x')"
            )
        assert refused.value.rule == "captions_one_draft"
