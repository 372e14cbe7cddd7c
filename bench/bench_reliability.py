"""Store reliability under kills and contention: operations, kills, lost writes, tracebacks.

Three experiments on real project files, each process a real ``python`` run:

1. **Killed writers.** Per round three processes write audited changes one after another
   (pair flags through ``Project.change``), each printing a line per acknowledged write;
   one is killed with SIGKILL at a random moment, then the others. Counted: acknowledged
   writes, kills, acknowledged writes missing afterwards, integrity-check failures.
2. **Contention.** Per round four annotators submit captions on the same 12 pairs, all
   four reaching each pair at the same moment (rule: 2 per pair, from different people) while a fifth process holds the
   write lock 2 s at a time, four times, and a ``cir-studio transactions import`` runs
   meanwhile. Counted:
   submits, CLI writes that succeeded, rule breaks, duplicate drafts, tracebacks.
3. **Killed creation.** ``Project.create`` killed before its calls into SQLite or the file
   system (each of the first and last 30, every 5th between: the reliability suite's
   ``create-killed`` worker). Counted: kills, files left that ``open`` refuses.

Writes its figures into BENCHMARKS.md between ``<!-- bench:reliability -->`` markers.

    .venv/bin/python bench/bench_reliability.py [--kill-rounds 20] [--contention-rounds 6]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import markdown_table, write_section  # noqa: E402
from studio.errors import ProjectError  # noqa: E402
from studio.pairs.mining import mine_pairs  # noqa: E402
from studio.store import Project  # noqa: E402
from studio.store.records import ImageRecord  # noqa: E402

WORKERS = ROOT / "tests" / "reliability" / "reliability_workers.py"
TRACEBACK = "Traceback (most recent call last)"


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def worker(*args: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKERS), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )


def pair_project(path: Path, pairs: int) -> Path:
    with Project.create(path) as project:
        project.add_images(
            ImageRecord(
                id=f"img{i}",
                path=f"img{i}.jpg",
                category="dress",
                split="train",
                title=f"{('Red', 'Blue', 'Black')[i % 3]} {i % 5} Dress",
            )
            for i in range(2 * pairs + 4)
        )
        mine_pairs(project, "tfidf", pairs)
        return project.path


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def killed_writers(folder: Path, rounds: int, rng: random.Random) -> dict[str, int]:
    path = pair_project(folder / "kill", 4)
    totals = Counter()
    for number in range(rounds):
        names = [f"w{number}-{n}" for n in range(3)]
        writers = [worker("flagger", path, name, 10**6) for name in names]
        first = [process.stdout.readline() for process in writers]  # all are writing now
        time.sleep(rng.uniform(0.05, 1.5))
        writers[rng.randrange(3)].kill()
        time.sleep(rng.uniform(0.1, 0.5))
        for process in writers:
            process.kill()
        totals["kills"] += 3
        with Project.open(path) as project:
            for name, process, line in zip(names, writers, first, strict=True):
                process.wait()
                out, err = line + process.stdout.read(), process.stderr.read()
                acked = {int(line.split()[1]) for line in out.splitlines() if line[:4] == "ack "}
                rows = project.db.execute(
                    "SELECT json_extract(after, '$.reason') FROM audit_log WHERE actor = :name",
                    {"name": name},
                ).fetchall()
                present = {int(reason.rsplit("-", 1)[1]) for (reason,) in rows}
                totals["acknowledged"] += len(acked)
                totals["lost"] += len(acked - present)
                totals["tracebacks"] += err.count(TRACEBACK)
        totals["integrity failures"] += integrity(path) != "ok"
    return dict(totals)


def contention(folder: Path, rounds: int) -> dict[str, int]:
    totals = Counter()
    for number in range(rounds):
        path = pair_project(folder / f"contention{number}", 12)
        with Project.open(path) as project:
            ids = [image.id for image in project.iter_images()][:8]
        data = folder / f"turns{number}.json"
        data.write_text(
            json.dumps(
                [
                    {
                        "ref": ids[i],
                        "tar1": ids[i + 1],
                        "tar2": ids[i + 2],
                        "tar3": ids[i + 3],
                        "mod1": "is red",
                        "mod2": "is longer",
                        "mod3": "has sleeves",
                    }
                    for i in (0, 4)
                ]
            )
        )
        go = folder / f"go{number}"
        annotators = [
            worker("annotate", path, name, go, number, 4) for name in ("ann", "bob", "cyd", "dee")
        ]
        for process in annotators:  # all loaded: "ready"
            process.stdout.readline()
        holder = worker("hold-lock", path, 2, 4)  # 2 s at a time, 4 times
        holder.stdout.readline()
        go.touch()  # the annotators start together, against the holder
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "studio",
                "transactions",
                "import",
                str(data),
                "--project",
                str(path),
            ],
            capture_output=True,
            text=True,
            env=env(),
        )
        totals["CLI writes"] += 1
        totals["CLI writes that succeeded"] += cli.returncode == 0
        totals["tracebacks"] += cli.stderr.count(TRACEBACK)
        for process in [*annotators, holder]:
            out, err = process.communicate()
            totals["submits acknowledged"] += out.count("submitted ")
            totals["tracebacks"] += err.count(TRACEBACK)
        with Project.open(path) as project:
            rows = project.db.execute("SELECT pair_id, author_id, status FROM captions").fetchall()
        live = Counter(pair for pair, _, status in rows if status == "submitted")
        totals["pairs over the rule"] += sum(count > 2 for count in live.values())
        authors = Counter((pair, author) for pair, author, status in rows if status == "submitted")
        totals["same person twice on a pair"] += sum(count > 1 for count in authors.values())
        drafts = Counter((pair, author) for pair, author, status in rows if status == "draft")
        totals["duplicate drafts"] += sum(count > 1 for count in drafts.values())
    return dict(totals)


def killed_creation(folder: Path) -> dict[str, int]:
    """``Project.create`` killed before its write calls (the reliability suite's
    ``create-killed`` worker: each attempt a forked child, killed with SIGKILL), then each
    attempt's folder opened."""
    images = folder / "images"
    images.mkdir()
    kills = folder / "kills"
    process = worker("create-killed", kills, images)
    out, err = process.communicate()
    lines = out.splitlines()
    assert process.returncode == 0 and lines and lines[0].startswith("calls "), err[-2000:]
    totals = Counter()
    totals["tracebacks"] += err.count(TRACEBACK)
    for line in lines[1:]:
        kill_at, ended_by = map(int, line.split())
        totals["kills"] += ended_by == signal.SIGKILL
        path = kills / f"k{kill_at}" / "project.cirdb"
        if not path.exists():
            totals["no project"] += 1
            continue
        try:
            with Project.open(path) as project:
                complete = bool(project.get_meta("created_at")) and project.name == "Complete"
        except ProjectError:
            complete = False
        totals["complete project" if complete else "unopenable or incomplete file"] += 1
    return dict(totals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kill-rounds", type=int, default=20)
    parser.add_argument("--contention-rounds", type=int, default=6)
    parser.add_argument("--no-write", action="store_true", help="print, do not edit BENCHMARKS")
    args = parser.parse_args(argv)
    rng = random.Random(0)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cir-bench-reliability-") as tmp:
        folder = Path(tmp)
        os.environ.setdefault("CIR_STUDIO_HOME", str(folder / "home"))
        kills = killed_writers(folder, args.kill_rounds, rng)
        contended = contention(folder, args.contention_rounds)
        creation = killed_creation(folder)
    seconds = time.perf_counter() - started
    body = "\n\n".join(
        [
            f"**Killed writers** ({args.kill_rounds} rounds of 3 writer processes, one killed at a "
            "random moment, then the others):",
            markdown_table(["figure", "count"], [[k, v] for k, v in kills.items()]),
            f"**Contention** ({args.contention_rounds} rounds: 4 annotators on the same 12 pairs, "
            "all four reaching each pair at the same moment, rule 2 captions per pair from "
            "different people, plus a process holding the write lock 2 s at a time, four times, "
            "while `cir-studio transactions import` runs):",
            markdown_table(["figure", "count"], [[k, v] for k, v in contended.items()]),
            "**Killed creation** (`Project.create` killed before its calls into SQLite or the "
            "file system: each of the first and last 30, every 5th between):",
            markdown_table(["figure", "count"], [[k, v] for k, v in creation.items()]),
            f"Took {seconds:.0f} s. Run: `.venv/bin/python bench/bench_reliability.py "
            f"--kill-rounds {args.kill_rounds} --contention-rounds {args.contention_rounds}`.",
        ]
    )
    print(body)
    if not args.no_write:
        write_section("reliability", "Store reliability under kills and contention", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
