"""The caption queue on a large project: the next pair as the project fills up.

    python bench/bench_queue.py [--pairs 30000] [--done 0,0.5,0.75,0.95] [--people 20]
                                [--json FILE] [--no-write]

For each share of pairs already done, builds a project of ``--pairs`` pairs (quota 2,
two different authors) whose first pairs have both their captions, then asks for the
next pair as people do: on SQLite the desktop's ``next_to_write`` for a person who has
written nothing (where a writing session starts), on PostgreSQL (the ``pgserver``
wheel, on this machine) the team server's ``take_next`` for ``--people`` new
annotators, one after another, each taking a lease (so each scan passes the pairs the
people before hold). Pairs are listed in id order and done from the first, as a team
working through a dataset leaves them. Writes the ``queue`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "pg_site"))

from bench.report import markdown_table, write_section  # noqa: E402

IMAGES = 2000


def build(folder: Path, pairs: int, done: int) -> Path:
    """An SQLite project: ``pairs`` pairs, the first ``done`` with two submitted captions."""
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import save_policy
    from studio.store import Project
    from studio.store.database import utc_now

    project = Project.create(folder / "queue.cirdb", name="queue bench",
                             image_root=folder / "images")
    now = utc_now()
    db = project.db
    with db.atomic():
        db.conn.executemany(
            "INSERT INTO images (id, path, category, split, title, added_at) "
            "VALUES (?, ?, 'dress', 'train', 'a dress', ?)",
            [(f"img{n}", f"img{n}.jpg", now) for n in range(IMAGES)],
        )
        db.conn.executemany(
            "INSERT INTO pairs (reference_id, target_id, category, split, method, score, "
            "source, external_key, created_at) VALUES (?, ?, 'dress', 'train', 'tfidf', 1, "
            "'bench', ?, ?)",
            [(f"img{n % IMAGES}", f"img{(n * 7 + 3) % IMAGES}", str(n), now)
             for n in range(pairs)],
        )
        authors = [project.ensure_person(name).id for name in ("writer-a", "writer-b")]
        db.conn.executemany(
            "INSERT INTO captions (pair_id, position, text, author_id, status, created_at, "
            "updated_at) VALUES (?, ?, 'is red and longer', ?, 'submitted', ?, ?)",
            [(pair, position, author, now, now) for pair in range(1, done + 1)
             for position, author in enumerate(authors)],
        )
    save_policy(project, CaptionPolicy(2, True), "lead")
    project.close()
    return folder / "queue.cirdb"


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
            "max": ordered[-1]}


def sqlite_next(path: Path, people: int) -> dict[str, float]:
    from studio.captions.queue import next_to_write
    from studio.captions.store import load_policy
    from studio.store import Project

    times = []
    with Project.open(path) as project:
        policy = load_policy(project)
        for n in range(people):
            start = time.perf_counter()
            next_to_write(project, f"newcomer-{n}", policy)
            times.append((time.perf_counter() - start) * 1000)
    return _ms(times)


def postgresql_leases(url: str, people: int) -> dict[str, float]:
    from studio.server import queue
    from studio.server.tokens import add_token, verify
    from studio.store import Project

    times = []
    with Project.open(url) as project:
        identities = [verify(project, add_token(project, f"newcomer-{n}", "annotator", "lead"))
                      for n in range(people)]
        for who in identities:
            assert who is not None
            start = time.perf_counter()
            queue.take_next(project, who, 600)
            times.append((time.perf_counter() - start) * 1000)
    return _ms(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30000)
    parser.add_argument("--done", default="0,0.5,0.75,0.95", help="shares of pairs done")
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md as it is")
    args = parser.parse_args()

    import cir_pg_engine

    from studio.store.transfer import copy_project

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = cir_pg_engine.start_server(work / "pg")
        try:
            for share in (float(x) for x in args.done.split(",")):
                done = int(args.pairs * share)
                folder = work / f"done-{done}"
                folder.mkdir()
                path = build(folder, args.pairs, done)
                url = cir_pg_engine.new_database(server.get_uri())
                copy_project(path, url)
                row = {"done": done, "sqlite": sqlite_next(path, args.people),
                       "postgresql": postgresql_leases(url, args.people)}
                results.append(row)
                print(json.dumps(row), flush=True)
        finally:
            cir_pg_engine.discard_server(server, work / "pg")
    if args.json:
        args.json.write_text(json.dumps({"pairs": args.pairs, "people": args.people,
                                         "results": results}, indent=1))
    if args.no_write:
        return 0
    rows = [[f"{r['done']:,} of {args.pairs:,}",
             f"{r['sqlite']['median']:.1f}", f"{r['sqlite']['p95']:.1f}",
             f"{r['postgresql']['median']:.1f}", f"{r['postgresql']['p95']:.1f}"]
            for r in results]
    body = (
        markdown_table(["pairs done", "SQLite next pair median ms", "p95",
                        "PostgreSQL lease median ms", "p95"], rows)
        + f"\n\nSQLite: the desktop's next pair for {args.people} people who wrote nothing "
        f"yet; PostgreSQL 16 (pgserver wheel, this machine): the team server's "
        f"`take_next` for {args.people} new annotators one after another, each taking a "
        "lease (quota 2, two different authors; the done pairs are the first ones).\n\n"
        f"Run: `python bench/bench_queue.py --pairs {args.pairs} --done {args.done} "
        f"--people {args.people}`."
    )
    write_section("queue", "Caption queue on a large project", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
