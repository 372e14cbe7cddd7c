"""Failure 2: a project creation killed at any point leaves no project or a complete one.

Before: schema and meta were committed separately in the file at its final name, so a
kill left a file that ``create`` refused (it exists) and ``open`` refused (no schema),
or a project whose name, image root and creation time were gone.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest
from reliability_helpers import cli, cli_process, has_traceback, integrity, make_images, worker

from studio.store import Project


def assert_no_project_or_a_complete_one(path: Path, image_root: Path, name: str) -> str:
    """'none' or 'complete'; fails on anything in between."""
    if not path.exists():
        return "none"
    assert integrity(path) == "ok"
    with Project.open(path) as project:  # raises on a half-made file
        assert project.name == name
        assert project.image_root == image_root.resolve()
        assert project.get_meta("created_at")
    return "complete"


@pytest.mark.slow
@pytest.mark.sqlite_only  # kills before each SQLite call; PostgreSQL: test_kill_copy
def test_create_killed_before_each_of_its_writes(tmp_path: Path) -> None:
    images = make_images(tmp_path / "images", 1)
    process = worker("create-killed", tmp_path / "kills", images)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    lines = out.splitlines()
    calls = int(lines[0].split()[-1])
    assert calls > 10  # connect, pragmas, migrations, meta, checkpoint, link …
    attempts = [tuple(map(int, line.split())) for line in lines[1:]]
    assert [kill_at for kill_at, _ in attempts][:3] == [1, 2, 3]
    assert attempts[-1][0] == calls
    outcomes = []
    for kill_at, ended_by in attempts:
        assert ended_by == signal.SIGKILL, f"attempt {kill_at} was not killed"
        path = tmp_path / "kills" / f"k{kill_at}" / "project.cirdb"
        outcomes.append(assert_no_project_or_a_complete_one(path, images, "Complete"))
        if outcomes[-1] == "none":  # the next attempt succeeds and clears the leftovers
            Project.create(path, name="Complete", image_root=images).close()
            assert_no_project_or_a_complete_one(path, images, "Complete")
            assert [p.name for p in path.parent.iterdir()] == ["project.cirdb"]
    assert "none" in outcomes and "complete" in outcomes


@pytest.mark.slow
def test_import_folder_into_a_new_project_killed_at_random_moments(tmp_path: Path) -> None:
    photos = make_images(tmp_path / "photos", 40)
    rng = random.Random(12)
    seen = set()
    for round_number in range(8):
        target = tmp_path / f"new{round_number}"
        process = cli_process("import", "folder", photos, "--project", target)
        time.sleep(rng.uniform(0.2, 1.6))
        process.kill()
        process.communicate()
        path = target / "project.cirdb"
        state = assert_no_project_or_a_complete_one(path, photos, target.name)
        if state == "complete":
            with Project.open(path) as project:
                images = project.count_images()
            assert images in (0, 40)  # the import itself is all or nothing
            state = f"complete, {images} images"
        seen.add(state)
        rerun = cli("import", "folder", photos, "--project", target)
        assert rerun.returncode == 0, rerun.stderr
        assert not has_traceback(rerun.stderr)
        with Project.open(path) as project:
            assert project.count_images() == 40
            assert project.name == target.name
    assert seen  # which states the kills hit is random; every one was acceptable
