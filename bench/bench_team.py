"""Team work round trip: assign, pack, people working at once, merges in random orders with kill -9.

    python bench/bench_team.py [--people 4,8] [--images 240,1200] [--pairs 120,600] [--orders 3]

Builds a coordinator's project (``studio.team.rehearsal``: captions, double reviews,
attribute batches, a blind rating sample), packs one package per person, lets every
person work on their package in their own process at the same time, and merges the
packages into copies of the project in ``--orders`` random orders. In every order each
merge is first killed with SIGKILL inside its transaction (the merging process waits at
a random step, then is killed) and then run again. Each final project is compared with
a reference merged in one fixed order without kills: records lost, records duplicated,
``PRAGMA integrity_check``. Writes the ``team`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import markdown_table, write_section  # noqa: E402

WORK = (
    "from studio.team.rehearsal import work_on_package as w; import json, sys; "
    "print(json.dumps(w(sys.argv[1], sys.argv[2])))"
)
MERGE = (
    "import sys; from pathlib import Path; from studio.store import Project; "
    "from studio.team.merge import merge_packages; "
    "p = Project.open(Path(sys.argv[1])); "
    "merge_packages(p, [Path(sys.argv[2])], 'lead', "
    "progress=lambda done, total, message: (print(done, flush=True), sys.stdin.readline()))"
)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _state(folder: Path) -> tuple[dict, str]:
    from studio.team.records import dump

    conn = sqlite3.connect(folder / "project.cirdb")
    try:
        return dump(conn, with_audit=True), conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def _killed_merge(project: Path, package: Path, rng: random.Random, steps: int) -> bool:
    proc = subprocess.Popen(
        [sys.executable, "-c", MERGE, str(project), str(package)],
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for _ in range(rng.randint(1, steps - 1)):
        proc.stdout.readline()
        proc.stdin.write("\n")
        proc.stdin.flush()
    proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def _parse_ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", default="4", help="people per scale, e.g. 4,8")
    parser.add_argument("--images", default="240", help="images per scale, e.g. 240,1200")
    parser.add_argument("--pairs", default="120", help="pairs per scale, e.g. 120,600")
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--no-write", action="store_true", help="print, do not write")
    args = parser.parse_args(argv)
    scales = list(
        zip(
            _parse_ints(args.people), _parse_ints(args.images), _parse_ints(args.pairs), strict=True
        )
    )
    rows, timing_rows, ok = [], [], True
    for n_people, n_images, n_pairs in scales:
        row, timing, good = run_scale(n_people, n_images, n_pairs, args.orders, args.seed)
        rows.append(row)
        timing_rows.append(timing)
        ok = ok and good
    table = markdown_table(
        [
            "people",
            "images",
            "records",
            "captions",
            "reviews",
            "label decisions",
            "ratings",
            "conflicts",
            "merges",
            "kills -9",
            "half-merged after kill",
            "lost",
            "duplicated",
            "integrity_check",
        ],
        rows,
    )
    timings = markdown_table(
        [
            "people",
            "build project",
            "pack (per person)",
            "people working at once (wall)",
            "merge (per package)",
        ],
        timing_rows,
    )
    body = (
        f"Command: `python bench/bench_team.py --people {args.people} --images "
        f"{args.images} --pairs {args.pairs} --orders {args.orders}`. Each of the "
        f"{args.orders} random merge orders kills every merge once with SIGKILL inside its "
        "transaction (the merging process waits at a random step), then runs it again with "
        "`cir-studio team merge`; the result is compared with a reference merged once in a "
        "fixed order without kills. *lost* counts records of the reference missing or "
        "different in a result, *duplicated* records a result has in excess.\n\n"
        f"{table}\n\n{timings}\n"
    )
    print(body)
    if not args.no_write:
        write_section(
            "team", "Team work packages: merge orders and kill -9 (bench/bench_team.py)", body
        )
    return 0 if ok else 1


def run_scale(
    n_people: int, n_images: int, n_pairs: int, orders: int, seed: int
) -> tuple[list[object], list[object], bool]:
    from studio.store import Project
    from studio.team.merge import merge_packages
    from studio.team.pack import pack
    from studio.team.records import KINDS
    from studio.team.rehearsal import build_project

    people = [f"person{n + 1}" for n in range(n_people)]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        project = build_project(folder / "project", people, n_images=n_images, n_pairs=n_pairs)
        build_s = time.perf_counter() - started
        (folder / "out").mkdir()
        started = time.perf_counter()
        packages = {name: pack(project, name, folder / "out", "lead").path for name in people}
        pack_s = (time.perf_counter() - started) / len(people)
        caption = project.db.execute(
            "SELECT id FROM captions WHERE status = 'submitted' ORDER BY id LIMIT 1"
        ).fetchone()[0]
        from studio.captions.store import review_caption

        review_caption(project, caption, "lead", "reject", "coordinator says no")
        project.close()

        started = time.perf_counter()
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WORK, str(path), name],
                env=_env(),
                stdout=subprocess.PIPE,
                text=True,
            )
            for name, path in packages.items()
        ]
        work = [json.loads(proc.communicate()[0]) for proc in procs]
        work_s = time.perf_counter() - started
        done = {key: sum(w[key] for w in work) for key in work[0]}

        reference_dir = folder / "reference"
        shutil.copytree(folder / "project", reference_dir)
        started = time.perf_counter()
        with Project.open(reference_dir) as reference_project:
            reports = merge_packages(reference_project, list(packages.values()), "lead")
        merge_s = (time.perf_counter() - started) / len(people)
        conflicts = sum(len(r.conflicts) for r in reports)
        reference, _ = _state(reference_dir)
        records = sum(len(rows) for rows in reference.values())

        kills = lost = duplicated = half = 0
        checks = []
        for number in range(orders):
            order = list(people)
            rng.shuffle(order)
            target = folder / f"order-{number}"
            shutil.copytree(folder / "project", target)
            for name in order:
                before, _ = _state(target)
                kills += _killed_merge(target, packages[name], rng, len(KINDS))
                after_kill, check = _state(target)
                half += after_kill != before
                checks.append(check)
                rerun = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "studio",
                        "team",
                        "merge",
                        "--project",
                        str(target),
                        str(packages[name]),
                    ],
                    env=_env(),
                    capture_output=True,
                )
                if rerun.returncode != 0:
                    raise SystemExit(rerun.stderr.decode())
            final, check = _state(target)
            checks.append(check)
            for kind, rows in reference.items():
                lost += len(set(rows) - set(final[kind]))
                duplicated += len(set(final[kind]) - set(rows))
                lost += sum(
                    1 for uid in rows if uid in final[kind] and final[kind][uid] != rows[uid]
                )
    integrity = "ok" if all(c == "ok" for c in checks) else "FAILED"
    row = [
        n_people,
        n_images,
        records,
        done["captions"],
        done["reviews"],
        done["labels"],
        done["ratings"],
        conflicts,
        orders * len(people),
        kills,
        half,
        lost,
        duplicated,
        integrity,
    ]
    timing = [
        n_people,
        f"{build_s:.1f} s",
        f"{pack_s * 1000:.0f} ms",
        f"{work_s:.1f} s",
        f"{merge_s * 1000:.0f} ms",
    ]
    return row, timing, lost == duplicated == half == 0 and integrity == "ok"


if __name__ == "__main__":
    raise SystemExit(main())
