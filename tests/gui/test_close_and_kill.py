"""Closing the studio while a job runs, and killing it while someone types.

These run the studio as a real process (``gui_workers.py``), because what they check
happens when the process ends: the question before a job is thrown away, a clean exit
with nothing printed, and the text typed up to a crash being in the project.
"""

from __future__ import annotations

import ast
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from studio.captions.store import own_caption
from studio.pairs.mining import mine_pairs
from studio.store import Project

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("gui_workers.py")
NOISE = ("Task was destroyed", "Traceback", "already deleted", "Error", "Exception")


def run_worker(*args: object) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return subprocess.Popen(
        [sys.executable, str(WORKER), *map(str, args)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env,
    )


def finish_after_close(process: subprocess.Popen) -> tuple[int, str, str]:
    """Wait for 'closing', then give the process a minute to end: a hang fails here
    instead of holding the suite. (It takes a few seconds; the rank and thumbnails kinds
    tear the interpreter down and wait for a model still loading, which took over 15 s
    with the core suites running beside the GUI suite.)"""
    lines = []
    for line in process.stdout:  # until the window is being closed
        lines.append(line)
        if line.startswith("closing"):
            break
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the studio did not end after its window closed: {err[-2000:]}")
    return process.returncode, "".join(lines) + out, err


def picture_folder(folder: Path, count: int) -> Path:
    """``count`` small, different pictures: an import with hashing and measuring to do."""
    from PIL import Image

    folder.mkdir()
    for number in range(count):
        colour = (number % 256, number // 256 * 40, 90)  # a different file each
        Image.new("RGB", (48, 64), colour).save(folder / f"new-{number:04}.png")
    return folder


def project_for(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if kind == "training":
        project = tmp_path / "captioned"
        shutil.copytree(request.getfixturevalue("captioned_template"), project)
    else:
        project = request.getfixturevalue(
            "demo_project_dir" if kind in ("index", "import") else "indexed_demo_dir"
        )
    with Project.open(project) as opened:  # pairs to type a caption for
        mine_pairs(opened, "tfidf", 4, split="test")
    return project


@pytest.mark.parametrize("kind", ["index", "simulation", "training", "import"])
def test_closing_during_a_job_asks_stops_it_and_exits_cleanly(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    project = project_for(kind, request, tmp_path)
    extra = [picture_folder(tmp_path / "pictures", 600)] if kind == "import" else []
    code, out, err = finish_after_close(run_worker(f"close-during-{kind}", project, *extra))
    assert code == 0, err[-3000:]
    assert "asked:" in out and "stop it and quit?" in out, out
    printed = [line for line in err.splitlines() if any(word in line for word in NOISE)]
    assert printed == [], err[-3000:]
    assert_typed_is_kept(out, project)


def assert_typed_is_kept(out: str, project: Path) -> None:
    """The caption typed just before the close (no autosave had fired) is in the project."""
    pair_id, typed = out.split("typed ", 1)[1].splitlines()[0].split(" ", 1)
    with Project.open(project) as opened:  # closed cleanly: it opens, nothing half-written
        assert opened.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        draft = own_caption(opened, int(pair_id), "tester")
    assert draft is not None and draft.text == ast.literal_eval(typed)


@pytest.mark.parametrize("kind", ["rank", "thumbnails"])
def test_closing_during_a_rank_or_thumbnails_exits_cleanly(kind: str, indexed_demo_dir: Path) -> None:
    with Project.open(indexed_demo_dir) as project:
        mine_pairs(project, "tfidf", 30)
    code, out, err = finish_after_close(run_worker(f"close-during-{kind}", indexed_demo_dir))
    assert code == 0, err[-3000:]
    assert "asked:" not in out
    printed = [line for line in err.splitlines() if any(word in line for word in NOISE)]
    assert printed == [], err[-3000:]
    assert_typed_is_kept(out, indexed_demo_dir)


def test_text_typed_without_a_pause_survives_a_kill(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 4)
    process = run_worker("type-then-kill", demo_project_dir, 2.5)
    out, err = process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL, err[-3000:]
    typed = ast.literal_eval(out.split("typed ", 1)[1].strip())
    with Project.open(demo_project_dir) as project:
        pair_id = project.db.execute("SELECT min(pair_id) FROM captions").fetchone()[0]
        assert pair_id is not None, "nothing typed reached the project"
        draft = own_caption(project, pair_id, "tester")
    assert draft is not None and typed.startswith(draft.text)
    # Saved at least once a second while typing: what is lost is the last second or so,
    # never the whole 2.5 s of typing (about 50 keys).
    assert len(draft.text) >= len(typed) // 3, (draft.text, typed)


def test_quit_hides_the_window_at_once_and_the_process_ends_within_two_seconds(
    demo_project_dir: Path, tmp_path: Path
) -> None:
    """The studio as `cir-studio --project` starts it; SIGTERM (a session logging out) is
    a quit like Ctrl+Q. The window goes at once, the process ends within 2 s."""
    import time

    log = tmp_path / "quit.log"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", CIR_STUDIO_QUIT_LOG=str(log),
               CIR_STUDIO_HOME=str(tmp_path / "home"))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    process = subprocess.Popen(
        [sys.executable, "-m", "studio", "--project", str(demo_project_dir), "--device", "cpu"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )

    def marks() -> list[tuple[str, float]]:
        lines = log.read_text().splitlines() if log.exists() else []
        return [(line.rsplit(" ", 1)[0], float(line.rsplit(" ", 1)[1])) for line in lines]

    deadline = time.monotonic() + 120
    while not any(name == "ready" for name, _ in marks()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the studio did not come up: {process.communicate()[1][-3000:]}")
        time.sleep(0.1)
    time.sleep(1.0)  # the panes settle (thumbnails, the ranker's preload)
    asked = time.time()
    process.send_signal(signal.SIGTERM)
    try:
        _out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the studio did not end after the quit")
    ended = time.time()
    assert process.returncode == 0, err[-3000:]
    names = [name for name, _ in marks()]
    assert "windows-hidden" in names and "project-closed" in names, names
    assert names.index("windows-hidden") < names.index("project-closed"), names
    hidden_at = dict(marks())["windows-hidden"]
    assert hidden_at - asked < 0.5, f"the window stayed {hidden_at - asked:.2f} s"
    assert ended - asked < 2.0, f"the process ended {ended - asked:.2f} s after the quit"
    printed = [line for line in err.splitlines() if any(word in line for word in NOISE)]
    assert printed == [], err[-3000:]
