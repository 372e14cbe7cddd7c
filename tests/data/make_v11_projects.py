"""How ``project_v11.cirdb`` and ``project_v11.pg.sql`` were made: by the studio as it was
before the Alembic chain (commit 649b218, schema 11), so the upgrade tests open files the
released code wrote, not files the new code imitates.

    git archive 649b218 studio resources | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/data/make_v11_projects.py tests/data [postgresql-url]

The PostgreSQL one is ``pg_dump --inserts --no-owner`` of the same project made there.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from studio.importers import import_fashioniq
from studio.store import Project
from studio.store.records import ImageRecord


def fill(project: Project, scratch: Path) -> None:
    root = scratch / "fiq"
    files = {
        "image_splits/split.dress.val.json": ["D3", "D1", "D2", "SHARED"],
        "image_splits/split.toptee.val.json": ["T2", "SHARED", "T1"],
        "captions/cap.dress.val.json": [
            {"target": "D1", "candidate": "D3", "captions": ["is red", "longer"]},
            {"target": "SHARED", "candidate": "D2", "captions": ["is blue", "has a print"]},
        ],
        "captions/cap.toptee.val.json": [
            {"target": "T1", "candidate": "T2", "captions": ["no sleeves", "darker"]},
        ],
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(data, indent=4))
    import_fashioniq(project, root)
    # added later, ids sorting before the imported ones; one gallery with a position tie
    project.add_images(
        [ImageRecord(id=f"A{n}", path=f"late/A{n}.jpg", category="dress", split="val")
         for n in (9, 8)]
    )
    project.ensure_person("ann")
    with project.writing("images"):
        project.db.execute("UPDATE images SET missing = 1 WHERE id IN ('D1', 'T2')")


def main() -> None:
    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with Project.create(folder / "p" / "project.cirdb", "Made at schema 11") as project:
            assert project.schema_version == 11
            fill(project, folder)
        target = out / "project_v11.cirdb"
        target.unlink(missing_ok=True)
        with sqlite3.connect(folder / "p" / "project.cirdb") as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute(f"VACUUM INTO '{target}'")
        if len(sys.argv) > 2:
            url = sys.argv[2]
            with Project.create(url, "Made at schema 11", local_path=folder / "project.pg") as p:
                fill(p, folder)
            dump = subprocess.run(
                ["pg_dump", "--inserts", "--no-owner", "--no-privileges", "--dbname", url],
                check=True, capture_output=True, text=True,
            ).stdout
            (out / "project_v11.pg.sql").write_text(dump)


if __name__ == "__main__":
    main()
