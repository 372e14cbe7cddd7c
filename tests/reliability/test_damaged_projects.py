"""Failures 5 and 7: damaged, empty, foreign and read-only project files.

Before: a zero-byte file was refused but written to (it became a 4 KiB SQLite header); a
read-only file gave a traceback on write; a read-only folder was reported as "not a CIR
Studio project database (attempt to write a readonly database)" and even read-only
commands could not run there.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_helpers import (
    cli,
    environment,
    has_traceback,
    make_pair_project,
    setup_cli,
)

from studio.errors import ProjectError
from studio.store import Project

NOBODY = 65534


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert not has_traceback(result.stderr), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "content",
    [b"", b"not a database at all\n" * 50, b"SQLite format 3"],  # empty, foreign, truncated
    ids=["zero-byte", "text-file", "truncated-header"],
)
def test_a_non_project_file_is_refused_without_being_written(tmp_path: Path, content) -> None:
    path = tmp_path / "project.cirdb"
    path.write_bytes(content)
    with pytest.raises(ProjectError, match="not a CIR Studio project|empty"):
        Project.open(path)
    line = one_line_error(cli("stats", "--project", path))
    assert str(path) in line
    assert path.read_bytes() == content  # not a byte written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project.cirdb"]  # no -wal/-shm


@pytest.mark.sqlite_only  # damages SQLite's pages in the file
def test_a_corrupted_table_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """The file opens (its first page is sound) but a table's page is garbage: SQLite's
    'database disk image is malformed' comes up mid-command and must be one line."""
    path = make_pair_project(tmp_path / "p", pairs=6)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'pairs'").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    line = one_line_error(cli("export", "jsonl", tmp_path / "out.jsonl", "--project", path))
    assert "malformed" in line
    assert not (tmp_path / "out.jsonl").exists()


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder another user can reach (pytest's own folders are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="cir-readonly-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    shutil.rmtree(folder)


def run_unprivileged(*args: object, home: Path) -> subprocess.CompletedProcess:
    """Run the CLI as a user that file permissions apply to (root ignores them)."""
    env = {**environment(), "CIR_STUDIO_HOME": str(home)}
    options = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    return subprocess.run(
        [sys.executable, "-m", "studio", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=home,
        **options,
    )


def read_only_project(folder: Path, what: str) -> Path:
    project = make_pair_project(folder / "p", pairs=6)
    home = folder / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    (folder / "out").mkdir()
    (folder / "out").chmod(0o777)
    if what == "file":
        project.parent.chmod(0o777)  # the folder stays writable (for another user too)
        project.chmod(0o444)
    else:
        project.chmod(0o644 if os.geteuid() == 0 else 0o444)  # root owns it: others read
        project.parent.chmod(0o555)
    return project


@pytest.mark.sqlite_only  # file permissions; PostgreSQL: test_pg_engine (read-only account)
@pytest.mark.parametrize("what", ["file", "folder"])
def test_read_only_projects_read_and_refuse_writes_in_one_line(shared_folder, what) -> None:
    path = read_only_project(shared_folder, what)
    home = shared_folder / "home"
    before = path.read_bytes()
    stats = run_unprivileged("stats", "--project", path, "--json", home=home)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["groups"] == {
        "dress": {"train": {"captions": 0, "gallery": 16, "missing": 0, "pairs": 6}}
    }
    for command in (["transactions", "list"], ["index", "status"]):
        listing = run_unprivileged(*command, "--project", path, home=home)
        assert listing.returncode == 0, listing.stderr
    export = run_unprivileged(
        "export", "jsonl", shared_folder / "out" / "pairs.jsonl", "--project", path, home=home
    )
    assert export.returncode == 0, export.stderr
    assert len((shared_folder / "out" / "pairs.jsonl").read_text().splitlines()) == 6
    labels = shared_folder / "out" / "labels.jsonl"
    labels.write_text('{"image_id": "img0", "attribute": "floral", "type": "texture"}\n')
    labels.chmod(0o644)
    write = run_unprivileged("attributes", "import", labels, "--project", path, home=home)
    line = one_line_error(write)
    assert "read-only" in line and str(path) in line
    assert path.read_bytes() == before


LOAD_SESSION = (
    "import sys; from pathlib import Path; from studio.store import Project; "
    "from studio.sessions.setup import load_session_context; "
    "project = Project.open(Path(sys.argv[1])); "
    "context = load_session_context(project, 'demo', 'cpu'); print('loaded', len(context.index))"
)


@pytest.mark.sqlite_only  # file permissions; PostgreSQL: test_pg_engine (read-only account)
def test_a_read_only_project_refuses_an_index_build_in_one_line_and_still_searches(
    shared_folder: Path,
) -> None:
    """Issue #27 D4: Build index on a read-only project raised "attempt to write a readonly
    database" from the embedding cache, and loading its existing index failed too (the
    colour measures could not be cached beside it)."""
    demo = shared_folder / "demo"
    setup_cli("demo", "create", demo, "--images", "30", "--pairs", "0", "--outfits", "0")
    setup_cli("index", "build", "--project", demo)
    home = shared_folder / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    for path in [*demo.rglob("*"), demo]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    line = one_line_error(run_unprivileged("index", "build", "--project", demo, home=home))
    assert "read-only" in line and "index" in line, line
    options = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    load = subprocess.run(
        [sys.executable, "-c", LOAD_SESSION, str(demo)],
        capture_output=True, text=True, timeout=120, cwd=home,
        env={**environment(), "CIR_STUDIO_HOME": str(home)}, **options,
    )
    assert load.returncode == 0, load.stderr
    assert load.stdout.split() == ["loaded", "30"]
