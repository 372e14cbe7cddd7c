"""What this machine's cores give PostgreSQL clients at 1, 2 and 16 at once, without the
studio: the ceiling the store and server benches' writer counts are read against.

Two kinds of client, each as separate processes on this machine, against PostgreSQL 16
(the ``pgserver`` wheel, Unix socket, fsync off as in ``bench_store.py``):

- ``pgbench``: PostgreSQL's own C client, ``pgbench -N`` (an update, a select and an
  insert per transaction), ``-c N`` connections on ``-j`` threads;
- ``psycopg``: N Python processes, each sending ``BEGIN; INSERT; SELECT count(*);
  COMMIT`` in one pipeline (the shape of a store write) into a table of its own, so no
  two share an index page and only the machine is shared.

Counted: transactions a second, and the CPU each side used a transaction (user + system
of the client processes and of PostgreSQL's, read from ``/proc`` by
``bench/cpu_sampler.py``). Writes the ``engine-scaling`` section of BENCHMARKS.md;
``--json FILE`` writes the figures too.

    .venv/bin/python bench/bench_engine_scaling.py [--clients 1,2,16] [--seconds 8] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "pg_site"))


def run_client(url: str, index: int, seconds: float, ready: Path) -> None:
    """One psycopg client: transactions until the deadline, then its count and CPU."""
    import psycopg

    from bench.together import wait_for_start

    table = f"t{index}"
    with psycopg.connect(url, autocommit=True) as conn:
        start_at = wait_for_start(ready)
        before, deadline, done = os.times(), start_at + seconds, 0
        while time.time() < deadline:
            with conn.pipeline():
                conn.execute("BEGIN")
                conn.execute(f"INSERT INTO {table} (w, v) VALUES (%s, %s)", (index, done))
                counted = conn.execute(f"SELECT count(*) FROM {table} WHERE w = %s AND v > %s",
                                       (index, done - 5))
                conn.execute("COMMIT")
            counted.fetchone()
            done += 1
        after = os.times()
    print(json.dumps({"transactions": done, "cpu_s": after.user - before.user
                      + after.system - before.system}), flush=True)


def _kind(pid: int, command: str) -> str | None:
    if "bench_engine_scaling.py --client" in command or "pgbench" in command.split(" ")[0]:
        return "clients"
    if command.startswith("postgres") or "bin/postgres" in command:
        return "postgresql"
    return None


def _python_case(url: str, count: int, seconds: float) -> dict[str, Any]:
    import psycopg

    from bench.cpu_sampler import CpuSampler
    from bench.together import start_when_ready

    with psycopg.connect(url, autocommit=True) as conn:
        for index in range(count):
            conn.execute(f"DROP TABLE IF EXISTS t{index}")
            conn.execute(f"CREATE TABLE t{index} (id bigint GENERATED ALWAYS AS IDENTITY "
                         f"PRIMARY KEY, w int, v int)")
            conn.execute(f"CREATE INDEX t{index}_wv ON t{index} (w, v)")
    folder = Path(tempfile.mkdtemp(prefix="cir-bench-scaling-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    processes = [
        subprocess.Popen([sys.executable, __file__, "--client", url, str(index), str(seconds),
                          str(folder / f"{index}.ready")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for index in range(count)
    ]
    start_at = start_when_ready(processes, [folder / f"{i}.ready" for i in range(count)],
                                lambda i: "", lead_s=0.3)
    sampler = CpuSampler(_kind, every_s=0.2)
    time.sleep(max(0.0, start_at - time.time()))
    sampler.start()
    time.sleep(max(0.0, start_at + seconds - 0.2 - time.time()))
    cpu = sampler.stop()
    reports = []
    for process in processes:
        assert process.stdout is not None
        reports.append(json.loads(process.stdout.read()))
        process.wait(timeout=60)
    transactions = sum(report["transactions"] for report in reports)
    return {
        "client": "psycopg", "processes": count,
        "transactions_per_s": round(transactions / seconds, 1),
        # the clients' own accounting covers exactly their window
        "cpu_ms_clients": round(1000 * sum(r["cpu_s"] for r in reports) / transactions, 3),
        "cpu_ms_postgresql": round(1000 * cpu.get("postgresql", 0.0) / transactions, 3),
        "cpu_s_machine": cpu.get("machine", 0.0),
    }


def _pgbench_case(pgbench: Path, url: str, count: int, seconds: float) -> dict[str, Any]:
    from bench.cpu_sampler import CpuSampler

    sampler = CpuSampler(_kind, every_s=0.2)
    sampler.start()
    out = subprocess.run(
        [str(pgbench), "-N", "-n", "-c", str(count), "-j", str(min(count, 2)),
         "-T", str(int(seconds)), url],
        capture_output=True, text=True, check=True,
    ).stdout
    cpu = sampler.stop()
    found = re.search(r"number of transactions actually processed: (\d+)", out)
    transactions = int(found.group(1)) if found else 0
    return {
        "client": "pgbench", "processes": count,
        "transactions_per_s": round(transactions / int(seconds), 1),
        "cpu_ms_clients": round(1000 * cpu.get("clients", 0.0) / max(1, transactions), 3),
        "cpu_ms_postgresql": round(1000 * cpu.get("postgresql", 0.0) / max(1, transactions), 3),
        "cpu_s_machine": cpu.get("machine", 0.0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", nargs=4, metavar=("URL", "INDEX", "SECONDS", "READY"))
    parser.add_argument("--clients", default="1,2,16")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args()
    if args.client:
        url, index, seconds, ready = args.client
        run_client(url, int(index), float(seconds), Path(ready))
        return 0

    import cir_pg_engine

    from bench.report import markdown_table, write_section

    counts = [int(n) for n in args.clients.split(",")]
    work = Path(tempfile.mkdtemp(prefix="cir-bench-scaling-"))
    server = cir_pg_engine.start_server(work / "pg")
    load_before = os.getloadavg()[0]
    results = []
    try:
        url = cir_pg_engine.new_database(server.get_uri())
        import pgserver  # the wheel cir_pg_engine starts PostgreSQL from carries pgbench

        pgbench = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pgbench"
        subprocess.run([str(pgbench), "-i", "-s", "1", "-q", url], check=True,
                       capture_output=True)
        for count in counts:
            for result in (_pgbench_case(pgbench, url, count, args.seconds),
                           _python_case(url, count, args.seconds)):
                print(json.dumps(result), flush=True)
                results.append(result)
    finally:
        cir_pg_engine.discard_server(server, work / "pg")
    load_after = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps({"results": results, "seconds": args.seconds,
                                         "load_before": load_before,
                                         "load_after": load_after}, indent=2) + "\n")
    had = args.seconds * (os.cpu_count() or 1)
    rows = [[r["client"], r["processes"], r["transactions_per_s"], r["cpu_ms_clients"],
             r["cpu_ms_postgresql"], f"{r['cpu_s_machine']:.1f} / {had:.1f}"] for r in results]
    table = markdown_table(
        ["client", "processes", "transactions/s", "clients' CPU ms a transaction",
         "PostgreSQL's CPU ms a transaction", "machine CPU-s used / had"], rows)
    body = (
        f"{args.seconds:g} s per case, PostgreSQL 16 (pgserver wheel) over a Unix socket with "
        "fsync off. `pgbench -N` (C; an update, a select and an insert a transaction); "
        "`psycopg`: Python processes sending BEGIN, an insert, a count and COMMIT in one "
        "pipeline, each into a table of its own. Load average (1 min) "
        f"{load_before:.1f} before, {load_after:.1f} after.\n\n" + table + "\n\n"
        f"Run: `.venv/bin/python bench/bench_engine_scaling.py --clients {args.clients} "
        f"--seconds {args.seconds:g}`."
    )
    if not args.no_write:
        write_section("engine-scaling", "PostgreSQL clients on this machine's cores, "
                      "without the studio (bench/bench_engine_scaling.py)", body)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
