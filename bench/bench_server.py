"""Team server under a crowd: simulated annotators (processes) against ``--workers 2``,
one worker killed with SIGKILL midway.

    python bench/bench_server.py [--annotators 50] [--minutes 2] [--pace 1.0]
                                 [--project postgresql://…] [--json FILE]

Starts its own PostgreSQL (the ``pgserver`` wheel) and a project of mined demo pairs
(quota 2 per pair from different people) unless given ``--project``, then
``cir-studio server start --workers 2``. Each annotator is a process with the Qt-free
client (``studio.server.client``, edits through its outbox): it takes its next pair,
saves a draft or two at human pace (``--pace`` scales the pauses), submits, and goes on
until the queue is empty or the time is up; then it sends whatever still waits. Halfway
one worker process is killed with SIGKILL (uvicorn starts a new one). Afterwards the
database is checked: captions beyond a pair's quota or twice from one person (quota
violations), acknowledged edits missing (lost), one person's caption stored twice on one
pair (duplicates). Only captions are exercised (not reviews or ratings). Writes the
``server`` section of BENCHMARKS.md and, with ``--json``, the figures
(``requests_per_s``, ``p95_ms`` per endpoint, ``lost``, ``duplicates``,
``quota_violations``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "pg_site"))

ANNOTATE = "import sys, bench.bench_server as b; b.annotate(*sys.argv[1:])"


def annotate(base: str, token: str, outbox: str, deadline: str, pace: str, out: str) -> None:
    """One simulated person (runs in its own process)."""
    from studio.server.client import Client, Offline

    timings: dict[str, list[float]] = {}

    class Timed(Client):
        def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
            key = f"{method} {re.sub(r'/[0-9]+', '/{id}', path)}"
            start = time.perf_counter()
            try:
                return super().call(method, path, body)
            finally:
                timings.setdefault(key, []).append((time.perf_counter() - start) * 1000)

    rng = random.Random(token)
    client = Timed(base, token, Path(outbox), timeout=10)
    end, scale = float(deadline), float(pace)
    uids: list[str] = []
    done = offline = idle = 0
    reasons: dict[str, int] = {}
    while time.time() < end:
        try:
            item = client.next_item()
        except Offline as error:
            offline += 1
            reasons[str(error)[:50]] = reasons.get(str(error)[:50], 0) + 1
            time.sleep(0.2)
            continue
        if item is None:  # nothing free now; others may still release or finish theirs
            idle += 1
            if idle > 5:
                break
            time.sleep(1.0)
            continue
        idle = 0
        pair = item["pair_id"]
        words = ["is darker", "has longer sleeves", "is plain", "has a collar"]
        text = rng.choice(words)
        for _ in range(rng.randint(1, 2)):
            time.sleep(rng.uniform(0.3, 1.0) * scale)  # typing
            text += " and " + rng.choice(words)
            uids.append(client.save_draft(pair, text))
        time.sleep(rng.uniform(0.2, 0.6) * scale)
        uids.append(client.submit(pair, text))
        done += 1
    flush_until = time.time() + 60
    while client.waiting() and time.time() < flush_until:
        try:
            client.flush()
        except Offline:
            offline += 1
            time.sleep(0.3)
    answers = {uid: client.answer(uid) for uid in uids}
    Path(out).write_text(json.dumps({
        "timings": timings, "items": done, "offline": offline, "reasons": reasons, "waiting": client.waiting(),
        "answers": {uid: (a[0] if a else None) for uid, a in answers.items()},
    }))
    client.close()


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _statuses(results: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for result in results:
        for status in result["answers"].values():
            counts[str(status)] = counts.get(str(status), 0) + 1
    return counts


def _merged(counts: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in counts:
        for key, value in each.items():
            total[key] = total.get(key, 0) + value
    return total


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def check(url: str, per_pair: int) -> dict[str, Any]:
    from studio.store import Project

    with Project.open(url) as project:
        db = project.db
        over = db.execute(
            "SELECT count(*) FROM (SELECT pair_id FROM captions WHERE status IN "
            "('submitted', 'accepted') GROUP BY pair_id HAVING count(*) > ?) t", [per_pair]
        ).fetchone()[0]
        twice = db.execute(
            "SELECT count(*) FROM (SELECT pair_id, author_id FROM captions WHERE status IN "
            "('submitted', 'accepted') GROUP BY pair_id, author_id HAVING count(*) > 1) t"
        ).fetchone()[0]
        duplicated = db.execute(
            "SELECT count(*) FROM (SELECT pair_id, author_id FROM captions "
            "WHERE status != 'rejected' GROUP BY pair_id, author_id HAVING count(*) > 1) t"
        ).fetchone()[0]
        applied = {row[0] for row in db.execute("SELECT uid FROM server_edits")}
        live = db.execute(
            "SELECT count(*) FROM captions WHERE status IN ('submitted', 'accepted')"
        ).fetchone()[0]
    return {"over_quota": int(over), "twice": int(twice), "duplicated": int(duplicated),
            "applied": applied, "live": int(live)}


def build(url: str, work: Path, pairs: int) -> None:
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import save_policy
    from studio.demo.project import create_demo_project
    from studio.pairs.mining import mine_pairs
    from studio.store import Project
    from studio.store.transfer import copy_project

    create_demo_project(work / "lite", n_images=max(60, pairs), seed=0, attributes=False)
    with Project.open(work / "lite") as project:
        save_policy(project, CaptionPolicy(2, True), "lead")
        mine_pairs(project, "tfidf", pairs, actor="lead")
    copy_project(work / "lite", url)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--pace", type=float, default=1.0, help="scale of the human pauses")
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--project", help="an existing PostgreSQL project (else one is made)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--log", type=Path, help="keep the server's log here")
    parser.add_argument("--no-write", action="store_true", help="do not touch BENCHMARKS.md")
    args = parser.parse_args()

    import socket

    from bench.report import markdown_table, write_section
    from studio.server.tokens import add_token
    from studio.store import Project

    work = Path(tempfile.mkdtemp(prefix="cir-bench-server-"))
    pg = None
    server: subprocess.Popen | None = None
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        url = args.project
        if url is None:
            import cir_pg_engine

            pg = cir_pg_engine.start_server(work / "pg")
            url = cir_pg_engine.new_database(pg.get_uri())
            build(url, work, args.pairs)
        people = [f"annotator-{n:02d}" for n in range(args.annotators)]
        with Project.open(url) as project:
            keys = {name: add_token(project, name, "annotator", "bench") for name in people}
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "studio", "server", "start", "--project", url, "--port",
             str(port), "--workers", "2", "--lease-seconds", "60"],
            env=env, stdout=subprocess.DEVNULL, stderr=(work / "server.log").open("w"),
        )
        import urllib.request

        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        started = time.time()
        deadline = started + args.minutes * 60
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", ANNOTATE, base, keys[name], str(work / f"{name}.outbox"),
                 str(deadline), str(args.pace), str(work / f"{name}.json")], env=env)
            for name in people
        ]
        time.sleep(args.minutes * 30)
        workers = _children(server.pid)
        killed = None
        for pid in workers:
            if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                killed = pid
                os.kill(pid, signal.SIGKILL)
                break
        for proc in procs:
            proc.wait()
        elapsed = time.time() - started
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    results = [json.loads((work / f"{name}.json").read_text()) for name in people
               if (work / f"{name}.json").exists()]
    found = check(url, 2)
    if args.log:
        shutil.copy(work / "server.log", args.log)
    if pg is not None:
        pg.cleanup()
    shutil.rmtree(work, ignore_errors=True)

    timings: dict[str, list[float]] = {}
    for result in results:
        for key, values in result["timings"].items():
            timings.setdefault(key, []).extend(values)
    acknowledged = {uid for r in results for uid, status in r["answers"].items() if status}
    lost = len(acknowledged - found["applied"]) + sum(r["waiting"] for r in results)
    lost += args.annotators - len(results)  # a process that died without a report
    requests = sum(len(v) for v in timings.values())
    figures = {
        "annotators": args.annotators, "minutes": args.minutes, "workers": 2,
        "killed_worker": killed is not None, "seconds": round(elapsed, 1),
        "requests": requests, "requests_per_s": round(requests / elapsed, 1),
        "p50_ms": {k: round(_percentile(v, 0.5), 1) for k, v in sorted(timings.items())},
        "p95_ms": {k: round(_percentile(v, 0.95), 1) for k, v in sorted(timings.items())},
        "submits_sent": sum(r["items"] for r in results), "items_done": found["live"],
        "answers": _statuses(results),
        "offline_retries": sum(r["offline"] for r in results),
        "offline_reasons": _merged([r.get("reasons", {}) for r in results]),
        "quota_violations": found["over_quota"] + found["twice"],
        "lost": lost, "duplicates": found["duplicated"],
    }
    print(json.dumps(figures, indent=1))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    if not args.no_write:
        rows = [[key, len(timings[key]), figures["p50_ms"][key], figures["p95_ms"][key]]
                for key in sorted(timings)]
        body = (
            f"{args.annotators} annotator processes for {args.minutes} min (pace "
            f"{args.pace}), `cir-studio server start --workers 2`, one worker killed with "
            f"SIGKILL halfway ({'done' if killed else 'no worker found'}); PostgreSQL 16 "
            "(pgserver wheel) and every process on this one machine.\n\n"
            f"Requests: {requests} in {elapsed:.0f} s = **{figures['requests_per_s']} "
            f"requests/s**; captions submitted: {figures['items_done']}; edit answers by "
            f"status: {figures['answers']}; retries while "
            f"a worker was down: {figures['offline_retries']}; quota violations: "
            f"**{figures['quota_violations']}**; lost edits: **{lost}**; duplicate "
            f"captions: **{figures['duplicates']}**.\n\n"
            + markdown_table(["endpoint", "requests", "p50 ms", "p95 ms"], rows)
            + f"\n\nRun: `python bench/bench_server.py --annotators {args.annotators} "
            f"--minutes {args.minutes} --pace {args.pace} --pairs {args.pairs}`. p95 includes "
            "the waits for the project's write lock on 2 cores shared with the 50 clients "
            "and the database."
        )
        write_section("server", "Team server: annotators at once, a worker killed "
                      "(bench/bench_server.py)", body)
    return 0 if figures["lost"] == figures["duplicates"] == figures["quota_violations"] == 0 \
        else 1


if __name__ == "__main__":
    raise SystemExit(main())
