"""Failure 1: a writer waits for another program's write lock instead of failing.

Before: ``Project.change`` opened a deferred ``BEGIN``; a transaction that read before
it wrote got SQLITE_BUSY at its first write without waiting, and the CLI printed a
``sqlite3.OperationalError`` traceback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from reliability_helpers import cli, cli_process, has_traceback, make_images, worker

from studio.store import Project


def fashionmt_file(path: Path, ids: list[str]) -> Path:
    entries = [
        {
            "ref": ids[i],
            "tar1": ids[i + 1],
            "tar2": ids[i + 2],
            "tar3": ids[i + 3],
            "mod1": "is red",
            "mod2": "is longer",
            "mod3": "has sleeves",
            "cap0": "",
            "cap1": "",
            "cap2": "",
            "cap3": "",
        }
        for i in range(0, len(ids) - 3, 4)
    ]
    path.write_text(json.dumps(entries))
    return path


def folder_project(tmp_path: Path) -> tuple[Path, list[str]]:
    photos = make_images(tmp_path / "photos", 12)
    result = cli("import", "folder", photos, "--project", tmp_path / "p")
    assert result.returncode == 0, result.stderr
    with Project.open(tmp_path / "p") as project:
        return project.path, [image.id for image in project.iter_images()]


def test_transactions_import_waits_for_a_lock_held_two_seconds(tmp_path: Path) -> None:
    path, ids = folder_project(tmp_path)
    data = fashionmt_file(tmp_path / "turns.json", ids)
    holder = worker("hold-lock", path, 2, 4)  # 2 s at a time, 4 times: a long import
    assert holder.stdout.readline().strip() == "held"
    result = cli("transactions", "import", data, "--project", path)
    holder.wait(timeout=30)
    assert result.returncode == 0, result.stderr
    assert not has_traceback(result.stderr)
    with Project.open(path) as project:
        assert project.table_counts()["transactions"] == 3
        assert project.get_meta("holder") == "xxxx"  # the other program's writes too


def test_import_folder_and_attributes_import_wait_too(tmp_path: Path) -> None:
    path, ids = folder_project(tmp_path)
    make_images(tmp_path / "photos" / "more", 3, prefix="new")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"image_id": i, "attribute": "floral", "type": "texture"}) + "\n"
            for i in ids[:4]
        )
    )
    holder = worker("hold-lock", path, 2, 4)
    assert holder.stdout.readline().strip() == "held"
    folder = cli_process("import", "folder", tmp_path / "photos", "--project", path)
    attributes = cli_process("attributes", "import", labels, "--project", path)
    for process in (folder, attributes):
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
    holder.wait(timeout=30)
    with Project.open(path) as project:
        assert project.count_images() == 15
        assert project.table_counts()["image_attributes"] == 4


def held_until_told(path: Path) -> subprocess.Popen:
    """Another program holding the project's write lock until the test says a line (a
    fixed time raced the command line's own start, seconds long on a busy machine)."""
    holder = worker("hold-lock", path, "until-told", stdin=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_writer_waits_as_long_as_another_program_holds_the_lock_and_says_so(
    tmp_path: Path,
) -> None:
    """Past the busy timeout (a long ``import fashioniq``): the command line says once
    that it is waiting, and writes when the other program is done."""
    path, ids = folder_project(tmp_path)
    data = fashionmt_file(tmp_path / "turns.json", ids)
    holder = held_until_told(path)
    writer = cli_process("transactions", "import", data, "--project", path)
    assert writer.stderr is not None and holder.stdin is not None
    first = writer.stderr.readline()  # the command line waits, and says so
    holder.stdin.write("done\n")
    holder.stdin.flush()
    holder.wait(timeout=30)
    _, rest = writer.communicate(timeout=60)
    stderr = first + rest
    assert writer.returncode == 0, stderr
    assert not has_traceback(stderr)
    waiting = [line for line in stderr.splitlines() if line.startswith("waiting:")]
    assert len(waiting) == 1 and first.startswith("waiting:"), stderr
    named = path if "postgresql://" not in waiting[0] else "postgresql://"  # the test engine
    assert f"another program is writing to {named}" in waiting[0]
    assert "Ctrl+C" in waiting[0]
    with Project.open(path) as project:
        assert project.table_counts()["transactions"] == 3
        assert project.get_meta("holder") == "x"


def test_a_wait_past_its_limit_is_one_error_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ids = folder_project(tmp_path)
    data = fashionmt_file(tmp_path / "turns.json", ids)
    monkeypatch.setenv("CIR_STUDIO_BUSY_WAIT", "1")  # seconds, after the busy timeout
    holder = held_until_told(path)
    result = cli("transactions", "import", data, "--project", path)
    holder.kill()
    holder.wait()
    assert result.returncode == 2, result.stderr
    assert not has_traceback(result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("waiting:")
    assert "the project is busy: another program is writing to it; try again" in lines[1]
    with Project.open(path) as project:
        assert project.table_counts()["transactions"] == 0  # nothing half-written
