"""Work packages (SQLite files) merge into a PostgreSQL project as into an SQLite one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from studio.store import Project
from studio.store.transfer import copy_project
from studio.team.merge import merge_packages
from studio.team.pack import pack
from studio.team.records import dump

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = ("ann", "bob")
WORK = (
    "from studio.team.rehearsal import work_on_package as w; import sys; "
    "print(w(sys.argv[1], sys.argv[2]))"
)


def test_packages_merge_into_postgresql_as_into_sqlite(postgresql_url: str, tmp_path: Path) -> None:
    """Both engines end with the same records; the second merge adds nothing; a merge is
    heard as events; a PostgreSQL project packs SQLite packages too."""
    from studio.team.rehearsal import build_project

    project = build_project(tmp_path / "project", PEOPLE, n_images=40, n_pairs=12)
    (tmp_path / "out").mkdir()
    packages = [pack(project, name, tmp_path / "out", "lead").path for name in PEOPLE]
    project.close()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    for name, path in zip(PEOPLE, packages, strict=True):
        subprocess.run([sys.executable, "-c", WORK, str(path), name], env=env, check=True)
    copy_project(tmp_path / "project", postgresql_url)
    shutil.copytree(tmp_path / "project", tmp_path / "lite")
    with Project.open(tmp_path / "lite") as lite:
        lite_reports = merge_packages(lite, packages, "lead")
        expected = dump(lite)
    with Project.open(postgresql_url) as shared:
        heard: list[str] = []
        shared.events.changed.connect(heard.append)
        reports = merge_packages(shared, packages, "lead")
        assert [r.changes for r in reports] == [r.changes for r in lite_reports]
        assert all(r.changes for r in reports) and not any(r.unplaced for r in reports)
        assert dump(shared) == expected
        assert "captions" in heard
        again = merge_packages(shared, packages, "lead")
        assert [r.changes for r in again] == [0, 0]
        assert dump(shared) == expected
        # a coordinator on PostgreSQL hands out packages too: an SQLite file each
        (tmp_path / "again").mkdir()
        second = pack(shared, "ann", tmp_path / "again", "lead")
        with Project.open(second.path) as package:
            assert package.get_meta("team.person") == "ann"
            assert package.get_meta("project_id") == shared.get_meta("project_id")
        [back] = merge_packages(shared, [second.path], "lead")
        assert back.changes == 0 and dump(shared) == expected
