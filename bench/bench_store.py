"""The store under concurrent writers: SQLite against PostgreSQL, 1, 4 and 16 processes.

Each writer is a real ``python`` process working as one person on the same project, as
fast as it can for ``--seconds``: a caption (save a draft, then submit it), a label
decision (accept or reject an attribute on an image), a rating (save a score on one of
its own rating items), over and over. ``--pairs own`` (the default): each writer
captions pairs no other writer has (the project holds ``PAIRS`` pairs, enough that no
writer runs out within the window), so the figures compare writers doing the same work;
``--pairs shared``: every writer goes through all pairs in its own order, so most
captions of many writers meet a pair that has its two captions already (the rule
refuses them; counted, not a write). Every acknowledged write is printed (flushed) and
afterwards checked against the database: a caption submitted, the label's last decision,
the rating's last score. Counted: writes per second (all writers), p50 and p95 latency
of one write, busy waits (a transaction that found the write lock taken and waited for
it), refusals (the two-captions-per-pair rule answering), errors, lost writes.

PostgreSQL runs on this machine (the ``pgserver`` wheel, Unix socket): its figures are
the engine's, without a network. Writes the table into BENCHMARKS.md between
``<!-- bench:store -->`` markers; ``--json FILE`` writes the figures too.

    .venv/bin/python bench/bench_store.py [--writers 1,4,16] [--seconds 10] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "pg_site"))

ATTRIBUTES = ("red", "blue", "floral", "striped", "long", "short")
RATERS_SAMPLE = "main"
# One PostgreSQL writer submits about 200 captions a second on this machine: 6,000 pairs
# last one writer 30 s, more than any window here (a writer that runs out only labels
# and rates, lighter work, which made the figures of different writer counts unlike).
PAIRS = 6000


def writer_name(index: int) -> str:
    return f"w{index:02d}"


# -- the project ----------------------------------------------------------------------------


def build_template(folder: Path, max_writers: int) -> Path:
    """A demo project with pairs, a small vocabulary and a rating queue per writer."""
    from studio.attributes.vocabulary import add_attribute
    from studio.demo.project import create_demo_project
    from studio.pairs.mining import mine_pairs
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.store import Project
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    create_demo_project(folder, n_images=600, seed=0, attributes=False)
    with Project.open(folder) as project:
        mine_pairs(project, "tfidf", PAIRS)
        add_random_pairs(project, PAIRS)
        for name in ATTRIBUTES:
            add_attribute(project, "bench", name, "style" if len(name) > 4 else "shape")
        images = [image.id for image in project.iter_images()]
        chains = [
            Transaction("Bench", f"k{n}", tuple(images[n : n + 4]),
                        sequential_turns(["is red", "is longer", "has a v-neck"]))
            for n in range(0, 60, 2)
        ]
        save_transactions(project, chains, "bench")
        raters = tuple(writer_name(i) for i in range(max(2, max_writers)))
        create_sample(project, SampleOptions(raters=raters, share=1.0), "bench")
    return folder


def add_random_pairs(project: Any, total: int) -> None:
    """Pairs of two images of one category up to ``total`` (mining gives one per image)."""
    from studio.store.database import utc_now
    from studio.store.repos import pairs as pairs_repo

    rng = random.Random(0)
    by_category: dict[str, list[str]] = {}
    for image in project.iter_images():
        by_category.setdefault(image.category or "", []).append(image.id)
    have = int(project.db.execute("SELECT count(*) FROM pairs").fetchone()[0])
    groups = sorted((name, ids) for name, ids in by_category.items() if len(ids) > 1)
    wanted: dict[str, dict[str, Any]] = {}
    while have + len(wanted) < total:
        category, ids = rng.choice(groups)
        reference, target = rng.sample(ids, 2)
        key = f"bench:{reference}>{target}"
        wanted[key] = {"reference_id": reference, "target_id": target, "category": category,
                       "split": "train", "method": "manual", "score": 0.0, "source": "bench",
                       "external_key": key}
    with project.change("bench", "add", "pairs", "bench"):
        pairs_repo.add_pairs(project, wanted.values(), utc_now())


# -- one writer process ------------------------------------------------------------------


def run_writer(location: str, index: int, seconds: float, ready: Path, writers: int,
               shared: bool = False) -> None:
    """Write until the deadline; one JSON line per acknowledged write, then a summary.
    It starts with the others once all are open (``bench.together``)."""
    from bench.together import wait_for_start
    from studio.attributes.labels import review
    from studio.captions.store import save_draft, submit_caption
    from studio.errors import ProjectBusyError, StudioError
    from studio.quality.ratings import next_item, save_scores
    from studio.store import Project

    name = writer_name(index)
    rng = random.Random(index)
    with Project.open(location) as project:
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        images = [image.id for image in project.iter_images()]
        # Label decisions on images no other writer touches (else the order of two
        # writers' decisions on one image is unknown here and "lost" counts a later one).
        mine = images[index :: max(16, writers)]
        items = []
        item = next_item(project, RATERS_SAMPLE, name)
        if item is not None:
            items.append(item.assignment_id)
        if shared:
            rng.shuffle(pairs)
        else:
            pairs = pairs[index::writers]
        wait_for_start(ready)
        deadline = time.time() + seconds
        step, refused, errors = 0, 0, 0
        while time.time() < deadline:
            kind = ("caption", "label", "rating")[step % 3]
            if kind == "caption" and step // 3 >= len(pairs):
                step += 1  # every pair has this writer's caption (or two others'): no more
                continue
            started = time.perf_counter()
            try:
                if kind == "caption":
                    pair = pairs[step // 3]
                    text = f"is darker {name} {step}"
                    save_draft(project, pair, name, text)
                    submit_caption(project, pair, name, text)
                    key: list[Any] = [pair, text]
                elif kind == "label":
                    image, attribute = rng.choice(mine), rng.choice(ATTRIBUTES)
                    status = rng.choice(("accepted", "rejected"))
                    review(project, name, image, [attribute], status)
                    key = [image, attribute, status]
                else:
                    if not items:
                        step += 1
                        continue
                    score = 1 + step % 5
                    save_scores(project, items[0], name, {"accuracy": score})
                    key = [items[0], score]
            except ProjectBusyError:
                errors += 1
                step += 1
                continue
            except StudioError:
                refused += 1  # a rule answered (the pair has its captions): not a write
                step += 1
                continue
            ms = (time.perf_counter() - started) * 1000
            print(json.dumps({"kind": kind, "key": key, "ms": ms, "at": round(time.time(), 3)}),
                  flush=True)
            step += 1
        waits = project.db.busy_waits
    print(json.dumps({"summary": True, "refused": refused, "errors": errors,
                      "busy_waits": waits}), flush=True)


# -- the run --------------------------------------------------------------------------------


def lost_writes(location: str, writes: list[dict[str, Any]]) -> int:
    """Acknowledged writes the database does not hold (the last state of each key)."""
    from studio.store import Project

    lost = 0
    last_label: dict[tuple[str, str], str] = {}
    last_score: dict[int, int] = {}
    with Project.open(location) as project:
        db = project.db
        for write in writes:
            kind, key = write["kind"], write["key"]
            if kind == "caption":
                found = db.execute(
                    "SELECT count(*) FROM captions WHERE pair_id = :pair_id AND text = :text "
                    "AND status = 'submitted'", {"pair_id": key[0], "text": key[1]}
                ).fetchone()[0]
                lost += found != 1
            elif kind == "label":
                last_label[(key[0], key[1])] = key[2]
            else:
                last_score[key[0]] = key[1]
        for (image, attribute), status in last_label.items():
            row = db.execute(
                "SELECT ia.status FROM image_attributes ia JOIN attribute_vocab v "
                "ON v.id = ia.attribute_id WHERE ia.image_id = :image AND v.name = :attribute "
                "AND ia.source = 'person'", {"image": image, "attribute": attribute}
            ).fetchone()
            lost += row is None or row[0] != status
        for assignment, score in last_score.items():
            row = db.execute(
                "SELECT accuracy FROM ratings WHERE assignment_id = :assignment", {"assignment": assignment}
            ).fetchone()
            lost += row is None or row[0] != score
    return lost


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _process_kind(pid: int, command: str) -> str | None:
    """Whose CPU a process's is: a writer's or the PostgreSQL server's (None: neither)."""
    if "bench_store.py --worker" in command:
        return "writers"
    if command.startswith("postgres") or "bin/postgres" in command:
        return "postgresql"
    return None


def run_case(location: str, writers: int, seconds: float, shared: bool) -> dict[str, Any]:
    """Every writer's process at once; each writes its lines to a file of its own (a pipe
    read one writer after another would fill and stall the others mid-window)."""
    from bench.cpu_sampler import CpuSampler
    from bench.together import start_when_ready

    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    outputs = Path(tempfile.mkdtemp(prefix="cir-bench-store-out-"))
    processes = []
    for i in range(writers):
        with open(outputs / f"{i}.out", "w") as out, open(outputs / f"{i}.err", "w") as err:
            processes.append(subprocess.Popen(
                [sys.executable, __file__, "--worker", location, str(i), str(seconds),
                 str(outputs / f"{i}.ready"), str(writers), "shared" if shared else "own"],
                stdin=subprocess.PIPE, stdout=out, stderr=err, text=True, env=env,
            ))
    start_at = start_when_ready(processes, [outputs / f"{i}.ready" for i in range(writers)],
                                lambda i: (outputs / f"{i}.err").read_text()[-2000:])
    # The CPU is read up to just before the deadline, while every writer and its server
    # process still live (one that ended keeps only its last 0.2 s sample), and divided
    # by the writes acknowledged in that same span.
    sampler = CpuSampler(_process_kind, every_s=0.2)
    time.sleep(max(0.0, start_at - time.time()))
    sampler.start()
    sampled_from = time.time()
    time.sleep(max(0.0, start_at + seconds - 0.3 - time.time()))
    cpu = sampler.stop()
    sampled_to = time.time()
    writes: list[dict[str, Any]] = []
    refused = errors = waits = 0
    for i, process in enumerate(processes):
        process.wait(timeout=seconds + 120)
        for line in (outputs / f"{i}.out").read_text().splitlines():
            record = json.loads(line)
            if record.get("summary"):
                refused += record["refused"]
                errors += record["errors"]
                waits += record["busy_waits"]
            else:
                writes.append(record)
        if process.returncode:
            errors += 1
            print((outputs / f"{i}.err").read_text()[-2000:], file=sys.stderr)
    shutil.rmtree(outputs, ignore_errors=True)
    latencies = [w["ms"] for w in writes]
    count = max(1, sum(sampled_from <= w["at"] <= sampled_to for w in writes))
    return {
        "writers": writers,
        "writes": len(writes),
        "writes_per_s": round(len(writes) / seconds, 1),
        "p50_ms": round(percentile(latencies, 0.5), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "busy_waits": waits,
        "refused": refused,
        "errors": errors,
        "lost": lost_writes(location, writes),
        # CPU a write over the window: the writers' processes, the database server's
        "cpu_ms_writers": round(1000 * cpu.get("writers", 0.0) / count, 2),
        "cpu_ms_postgresql": round(1000 * cpu.get("postgresql", 0.0) / count, 2),
        "cpu_s_machine": cpu.get("machine", 0.0),
        "cpu_window_s": round(sampled_to - sampled_from, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--worker", nargs=6, metavar=("LOCATION", "INDEX", "SECONDS", "READY", "WRITERS", "PAIRS")
    )
    parser.add_argument("--pairs", choices=("own", "shared"), default="own",
                        help="each writer captions its own pairs, or all go through all")
    parser.add_argument("--writers", default="1,4,16")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args()
    if args.worker:
        location, index, seconds, ready, writers, pairs = args.worker
        run_writer(location, int(index), float(seconds), Path(ready), int(writers),
                   shared=pairs == "shared")
        return 0

    import cir_pg_engine

    from bench.report import markdown_table, write_section
    from studio.store.transfer import copy_project

    counts = [int(n) for n in args.writers.split(",")]
    engines = args.engines.split(",")
    work = Path(tempfile.mkdtemp(prefix="cir-bench-store-"))
    server = None
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    try:
        template = build_template(work / "template", max(counts))
        if "postgresql" in engines:
            server = cir_pg_engine.start_server(work / "pg")
        for engine in engines:
            for writers in counts:
                if engine == "sqlite":
                    folder = work / f"sqlite-{writers}"
                    shutil.copytree(template, folder)
                    location = str(folder / "project.cirdb")
                else:
                    assert server is not None
                    location = cir_pg_engine.new_database(server.get_uri())
                    copy_project(template, location)
                result = {"engine": engine, **run_case(location, writers, args.seconds, args.pairs == "shared")}
                print(json.dumps(result), flush=True)
                results.append(result)
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps({"results": results, "seconds": args.seconds,
                                         "pairs": args.pairs, "load_before": load_before,
                                         "load_after": list(load_after)}, indent=2) + "\n")
    rows = [[r["engine"], r["writers"], r["writes"], r["writes_per_s"], r["p50_ms"],
             r["p95_ms"], r["busy_waits"], r["refused"], r["errors"], r["lost"],
             r["cpu_ms_writers"], r["cpu_ms_postgresql"] if r["engine"] == "postgresql" else "",
             f"{r['cpu_s_machine']:.1f} / {r['cpu_window_s'] * (os.cpu_count() or 1):.1f}"]
            for r in results]
    table = markdown_table(
        ["engine", "writers", "writes", "writes/s", "p50 ms", "p95 ms", "busy waits",
         "refused by a rule", "errors", "lost", "writers' CPU ms a write",
         "PostgreSQL's CPU ms a write", "machine CPU-s used / had"], rows)
    body = (
        f"{args.seconds:g} s per case; each writer is a process writing captions (a draft "
        "saved, then submitted: one write, two audited transactions), label decisions and "
        "ratings (one audited transaction each) in turn, "
        + ("each on pairs of its own (`--pairs own`; "
           f"{PAIRS:,} pairs: no writer runs out). " if args.pairs == "own" else
           "all of them going through all pairs (`--pairs shared`: most captions meet a "
           "pair with its two captions already, refused by the rule). ")
        + "PostgreSQL 16 (pgserver wheel) "
        "on this machine over a Unix socket, "
        "with fsync off, as SQLite's WAL with synchronous=NORMAL: both keep every commit "
        "through a killed process, neither through a power cut. "
        f"Load average (1 min) {load_before:.1f} before, {load_after[0]:.1f} after "
        "(`uptime`).\n\n" + table + "\n\n"
        "Busy waits: transactions (not writes) that found another writer's lock and waited "
        "for it (SQLite: BEGIN IMMEDIATE slower than 2 ms; PostgreSQL: the advisory lock was "
        "taken). Lost: acknowledged writes missing afterwards. CPU: user + system time of "
        "the writers' processes and of the PostgreSQL server's, read from `/proc` every "
        "0.2 s (`bench/cpu_sampler.py`) from the start to 0.3 s before the end (while "
        "every process lives), divided by the writes acknowledged in that span; the "
        "machine's column is all its processes against what its cores had in it. "
        f"Run: `.venv/bin/python bench/bench_store.py --writers {args.writers} "
        f"--seconds {args.seconds:g} --pairs {args.pairs}`."
    )
    if not args.no_write:
        write_section("store", "Store: concurrent writers, SQLite and PostgreSQL", body)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
