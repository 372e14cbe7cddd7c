"""Shared helpers of the reliability suite: small projects, subprocesses, checks."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from PIL import Image

from studio.pairs.mining import mine_pairs
from studio.store import Project
from studio.store.records import ImageRecord

ROOT = Path(__file__).resolve().parents[2]
WORKERS = Path(__file__).with_name("reliability_workers.py")
COLOURS = ["Red", "Blue", "Black", "White"]
PATTERNS = ["Floral", "Striped", "Plain"]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def worker(*args: object, **options) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKERS), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
        **options,
    )


def run_fleet(
    folder: Path, workers: dict[str, tuple[str, list[object]]], timeout: float = 300
) -> dict[str, tuple[int, str, str]]:
    """Workers (name: kind and arguments) as processes forked from one that imported the
    store once (``reliability_workers.fleet``), all started at the same moment once every
    one is ready; per name its exit code (minus the signal that ended it), its standard
    output and its standard error."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "fleet.json"
    spec.write_text(json.dumps([[name, kind, [str(a) for a in args]]
                                for name, (kind, args) in workers.items()]))
    host = worker("fleet", spec, stdin=subprocess.PIPE)
    assert host.stdout is not None and host.stdin is not None
    line = host.stdout.readline()
    assert line.strip() == "ready", (line, host.stderr.read() if host.stderr else "")
    host.stdin.write("go\n")
    host.stdin.flush()
    out, err = host.communicate(timeout=timeout)
    assert host.returncode == 0, err
    codes = dict(line.rsplit(" ", 1) for line in out.splitlines())
    return {
        name: (int(codes[name]), (folder / f"{name}.out").read_text(),
               (folder / f"{name}.err").read_text())
        for name in workers
    }


def cli(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=timeout,
    )


def setup_cli(*args: object) -> None:
    """A command a test only needs done before what it checks (make a demo, build its
    index), run in this process: a fresh ``python -m studio`` that loads a model costs
    about 7 CPU-seconds of imports this process has already paid. What a test checks of a
    command (its exit code, its one-line error, a kill) still runs it as a process."""
    import contextlib
    import io

    from studio.cli.main import main

    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        code = main([str(arg) for arg in args])
    assert code == 0, output.getvalue()


def cli_process(*args: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "studio", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )


def make_images(folder: Path, count: int, prefix: str = "im") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        picture = Image.new("RGB", (8, 6), (index * 7 % 256, len(prefix) * 40, 30))
        picture.save(folder / f"{prefix}{index:03d}.png")
    return folder


def make_pair_project(path: Path | str, pairs: int = 12, local_path: Path | None = None) -> Path:
    """A project with catalog images (no files needed) and ``pairs`` mined pairs (at a
    ``postgresql://`` URL: ``local_path`` is its anchor; the URL's project's anchor is
    returned, open it by the URL)."""
    with Project.create(path, local_path=local_path) if local_path else Project.create(
        path
    ) as project:
        project.add_images(
            ImageRecord(
                id=f"img{i}",
                path=f"img{i}.jpg",
                category="dress",
                split="train",
                title=f"{COLOURS[i % 4]} {PATTERNS[i % 3]} Dress",
                description=f"number {i}",
            )
            for i in range(2 * pairs + 4)
        )
        mine_pairs(project, "tfidf", pairs)
        return project.path


def start_together(processes: list[subprocess.Popen], go: Path) -> None:
    """Wait until every worker printed ``ready``, then let them all go at once."""
    for process in processes:
        line = process.stdout.readline() if process.stdout else ""
        assert line.strip() == "ready", (line, process.stderr.read() if process.stderr else "")
    go.touch()


def integrity(path: Path) -> str:
    """SQLite's integrity check ("ok"); on the PostgreSQL test engine, whether the project
    opens and every table reads (PostgreSQL's own pages are its business)."""
    import cir_pg_engine

    if cir_pg_engine._read_link(Path(path)) is not None:
        with Project.open(path) as project:
            for table in project.table_counts():
                project.db.execute(f"SELECT count(*) FROM {table}").fetchone()
        return "ok"
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def has_traceback(text: str) -> bool:
    return "Traceback (most recent call last)" in text
