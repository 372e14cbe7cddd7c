"""Team server under a crowd: simulated people (processes) against ``--workers 2``,
one worker killed with SIGKILL midway; where the CPU time went, by kind of process.

    python bench/bench_server.py [--annotators 50] [--reviewers 6] [--raters 6]
                                 [--studios 2] [--minutes 2] [--pace 1.0]
                                 [--workers 2] [--project postgresql://…] [--json FILE]

``--annotators`` is the number of simulated people in all; ``--reviewers`` and
``--raters`` of them review captions and rate turns, the rest write captions.
``--studios`` real desktop studios (``bench/studio_writer.py``: the whole MainWindow and
Services, offscreen, each its own ``CIR_STUDIO_HOME`` and annotator token) write
captions alongside them in the Captions pane's team writer, typing key by key at human
pace and submitting with Ctrl+Enter; they start first and begin with everyone else once
all are ready.

Starts its own PostgreSQL (the ``pgserver`` wheel) and a project of mined demo pairs
(quota 2 per pair from different people) unless given ``--project``, then
``cir-studio server start --workers 2``. Each annotator is a process with the Qt-free
client (``studio.server.client``, edits through its outbox): it takes its next pair,
saves a draft or two at human pace (``--pace`` scales the pauses), submits, and goes on
until the queue is empty or the time is up; then it sends whatever still waits. Halfway
one worker process is killed with SIGKILL (uvicorn starts a new one). Afterwards the
database is checked: captions beyond a pair's quota or twice from one person (quota
violations), acknowledged edits missing (lost), one person's caption stored twice on one
pair (duplicates). Reviewers take the next submitted caption (never their own), read
it and accept, accept with an edit or reject it; raters take their next blind item, look
at its pictures (``GET /v1/images``, cached on disk) and score it. Checked as well:
captions reviewed by their author (``self_reviews``), a turn rated twice by one rater
(counted in ``duplicates``) and acknowledged review and rating edits missing (in
``lost``, and per kind in ``lost_by_kind``). Writes the ``server`` section of
BENCHMARKS.md and, with ``--json``, the figures (``requests_per_s``, ``p95_ms`` per
endpoint, ``lost``, ``duplicates``, ``quota_violations``, ``self_reviews``, and
``studios``: per studio the captions submitted with the keyboard, acknowledged by the
server, stored in the database and lost). The checks above cover the studios' edits
too; the studios' own requests are not in the request counts or latencies. ``cpu_s``
(and the section's last line): the CPU-seconds each kind of process used over the timed
window (server workers, PostgreSQL, the people's processes, the studios) and the whole
machine's, read from ``/proc`` (``bench/cpu_sampler.py``): where the time goes when
everything shares one machine.
"""

from __future__ import annotations

import argparse
import contextlib
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

PERSON = "import sys, bench.bench_server as b; b.person(*sys.argv[1:])"
STUDIO_START_S = 240  # a studio's imports, window and first pair, on a loaded machine
WORDS = ["is darker", "has longer sleeves", "is plain", "has a collar"]
FULL = ("accuracy", "historical_awareness", "granularity", "consistency", "coverage")


def _timed_client(base: str, token: str, outbox: Path, timings: dict[str, list[float]],
                  ended: list[float] | None = None) -> Any:
    """The ordinary client, timing every request by endpoint (and, in ``ended``, when each
    request ended, beside its time: how the latency moves over the run)."""
    from studio.server.client import Client

    def note(key: str, start: float) -> None:
        ms = (time.perf_counter() - start) * 1000
        timings.setdefault(key, []).append(ms)
        if ended is not None:
            ended.extend((round(time.time(), 3), round(ms, 1)))

    class Timed(Client):
        def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
            start = time.perf_counter()
            try:
                return super().call(method, path, body)
            finally:
                note(f"{method} {re.sub(r'/[0-9]+', '/{id}', path)}", start)

        def picture(self, image_id: str, size: int | None = None) -> bytes:
            start = time.perf_counter()
            try:
                return super().picture(image_id, size)
            finally:
                note("GET /v1/images/{id}", start)

    return Timed(base, token, outbox, timeout=10, picture_cache=outbox.with_suffix(".pictures"))


def person(role: str, base: str, token: str, outbox: str, pace: str, out: str) -> None:
    """One simulated person of ``role`` (runs in its own process). It says ``ready`` once
    its imports are done and reads the deadline from stdin: fifty processes importing at
    once on a loaded machine take seconds, which must not come out of the bench's time."""
    from studio.server.client import Offline

    timings: dict[str, list[float]] = {}
    ended: list[float] = []  # end time, ms, end time, ms, ...
    client = _timed_client(base, token, Path(outbox), timings, ended)
    print("ready", flush=True)
    deadline = sys.stdin.readline()
    state = {"rng": random.Random(token), "end": float(deadline), "scale": float(pace),
             "uids": {}, "done": 0, "offline": 0, "reasons": {}}
    work = {"annotator": _annotate, "reviewer": _review, "rater": _rate}[role]
    idle = 0
    while time.time() < state["end"]:
        try:
            did = work(client, state)
        except Offline as error:
            state["offline"] += 1
            reason = str(error)[:50]
            state["reasons"][reason] = state["reasons"].get(reason, 0) + 1
            time.sleep(0.2)
            continue
        if did:
            idle = 0
            continue
        idle += 1  # nothing free now; others may still release, finish or submit
        if role == "annotator" and idle > 5 or role == "rater":
            break
        time.sleep(1.0)
    flush_until = time.time() + 60
    while client.waiting() and time.time() < flush_until:
        try:
            client.flush()
        except Offline:
            state["offline"] += 1
            time.sleep(0.3)
    uids: dict[str, str] = state["uids"]
    answers = {uid: client.answer(uid) for uid in uids}
    Path(out).write_text(json.dumps({
        "role": role, "timings": timings, "ended": ended, "items": state["done"],
        "offline": state["offline"],
        "reasons": state["reasons"], "waiting": client.waiting(), "kinds": uids,
        "answers": {uid: (a[0] if a else None) for uid, a in answers.items()},
    }))
    client.close()


def _pause(state: dict[str, Any], low: float, high: float) -> None:
    time.sleep(state["rng"].uniform(low, high) * state["scale"])


def _annotate(client: Any, state: dict[str, Any]) -> bool:
    item = client.next_item()
    if item is None:
        return False
    rng, pair, uids = state["rng"], item["pair_id"], state["uids"]
    for image in (item["reference_id"], item["target_id"]):
        client.picture(image, 256)
    text = rng.choice(WORDS)
    for _ in range(rng.randint(1, 2)):
        _pause(state, 0.3, 1.0)  # typing
        text += " and " + rng.choice(WORDS)
        uids[client.save_draft(pair, text)] = "draft"
    _pause(state, 0.2, 0.6)
    uids[client.submit(pair, text)] = "submit"
    state["done"] += 1
    return True


def _review(client: Any, state: dict[str, Any]) -> bool:
    item = client.next_review()
    if item is None:
        return False
    rng = state["rng"]
    client.picture(item["target_id"], 256)
    _pause(state, 0.5, 1.5)  # reading the caption against the pictures
    roll = rng.random()
    if roll < 0.6:
        uid = client.decide(item["caption_id"], "accept")
    elif roll < 0.8:
        uid = client.decide(item["caption_id"], "accept", text=item["text"] + " overall")
    else:
        uid = client.decide(item["caption_id"], "reject", reason="does not name the change")
    state["uids"][uid] = "review"
    state["done"] += 1
    return True


def _rate(client: Any, state: dict[str, Any]) -> bool:
    item = client.next_rating()
    if item is None:
        return False
    rng = state["rng"]
    for turn in [*item["history"], item["turn"]]:
        client.picture(turn["target_id"], 256)
    _pause(state, 0.5, 1.5)
    scores = {key: rng.randint(1, 5) for key in FULL}
    state["uids"][client.save_scores(item["assignment_id"], scores)] = "rating"
    state["uids"][client.set_rating_status(item["assignment_id"], "done")] = "rating"
    state["done"] += 1
    return True


def _start_studio(work: Path, name: str, base: str, token: str, pace: float, number: int,
                  env: dict[str, str]) -> subprocess.Popen:
    """A real desktop studio (``bench/studio_writer.py``), offscreen, in a user folder of
    its own; it says ``ready`` once it holds a pair and waits for the deadline on stdin."""
    home = work / f"{name}-home"
    home.mkdir()
    return subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "studio_writer.py"), base, token, str(pace),
         str(number), str(work / f"{name}.json")],
        env={**env, "CIR_STUDIO_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        stderr=(work / f"{name}.log").open("w"),
    )


def _ready(desks: list[subprocess.Popen]) -> None:
    """Wait until every process is ready (a studio holds its first pair, a person has
    imported its client): start-up is not bench time."""
    end = time.time() + STUDIO_START_S
    for desk in desks:
        assert desk.stdout is not None
        while time.time() < end:
            line = desk.stdout.readline()
            if line.strip() == "ready" or not line:  # ready, or it ended (reported later)
                break


def _studio_figures(names: list[str], reports: dict[str, Any],
                    found: dict[str, Any]) -> list[dict[str, Any]]:
    """Per studio: captions submitted with Ctrl+Enter, acknowledged by the server (its
    2xx answer kept in the outbox), stored in the database, and edits lost (answered but
    not applied, or still waiting)."""
    figures = []
    for name in names:
        report = reports.get(name)
        if report is None:
            figures.append({"name": name, "report": False, "lost": 1})
            continue
        answered = {uid for uid, status in report["answers"].items() if status}
        figures.append({
            "name": name, "submitted": report["submitted"],
            "acknowledged": report["acknowledged"], "refused": report["refused"],
            "stored": found["stored"][name], "drafts": report["drafts"],
            "keys": report["keys"], "shortcut_missed": report["shortcut_missed"],
            "went_offline": report["went_offline"], "settled": report["settled"],
            "lost": len(answered - found["applied"]) + report["waiting"],
        })
    return figures


def _studio_lines(studios: list[dict[str, Any]]) -> str:
    if not studios:
        return ""
    each = "; ".join(
        f"{s['name']}: {s.get('submitted', '?')} submitted with Ctrl+Enter, "
        f"{s.get('acknowledged', '?')} acknowledged, {s.get('stored', '?')} stored, "
        f"{s['lost']} lost, offline {s.get('went_offline', '?')} times" for s in studios)
    return (f"{len(studios)} desktop studios (offscreen MainWindow processes typing key by "
            f"key in the Captions pane's team writer) at the same time: {each}.\n\n")


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


WINDOW_S = 15.0


def _by_window(ended: list[list[float]], started: float, width: float) -> list[dict[str, Any]]:
    """Every request of every person by the ``width`` seconds of the run it ended in: how
    many, their p50 and p95 (the start, when everybody asks at once, and the worker's
    kill show here, not only in the whole run's tail)."""
    buckets: dict[int, list[float]] = {}
    for pairs in ended:
        for at, ms in zip(pairs[::2], pairs[1::2], strict=True):
            buckets.setdefault(max(0, int((at - started) // width)), []).append(ms)
    return [{"from_s": n * width, "requests": len(buckets[n]),
             "p50_ms": round(_percentile(buckets[n], 0.5), 1),
             "p95_ms": round(_percentile(buckets[n], 0.95), 1)} for n in sorted(buckets)]


def _window_lines(windows: list[dict[str, Any]], killed_at: float) -> str:
    from bench.report import markdown_table

    if not windows:
        return ""
    rows = [[f"{w['from_s']:.0f}-{w['from_s'] + WINDOW_S:.0f} s"
             + (" (worker killed)" if w["from_s"] <= killed_at < w["from_s"] + WINDOW_S else ""),
             w["requests"], w["p50_ms"], w["p95_ms"]] for w in windows]
    return ("\n\nEvery request by when it ended (all endpoints together):\n\n"
            + markdown_table(["seconds of the run", "requests", "p50 ms", "p95 ms"], rows))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def check(url: str, per_pair: int, studios: list[str]) -> dict[str, Any]:
    from studio.store import Project

    with Project.open(url) as project:
        db = project.db
        over = db.execute(
            "SELECT count(*) FROM (SELECT pair_id FROM captions WHERE status IN "
            "('submitted', 'accepted') GROUP BY pair_id HAVING count(*) > :per_pair) t", {
                "per_pair": per_pair,
            }
        ).fetchone()[0]
        twice = db.execute(
            "SELECT count(*) FROM (SELECT pair_id, author_id FROM captions WHERE status IN "
            "('submitted', 'accepted') GROUP BY pair_id, author_id HAVING count(*) > 1) t"
        ).fetchone()[0]
        duplicated = db.execute(
            "SELECT count(*) FROM (SELECT pair_id, author_id FROM captions "
            "WHERE status != 'rejected' GROUP BY pair_id, author_id HAVING count(*) > 1) t"
        ).fetchone()[0]
        self_reviews = db.execute(
            "SELECT count(*) FROM captions WHERE reviewer_id = author_id"
        ).fetchone()[0]
        rated_twice = db.execute(
            "SELECT count(*) FROM (SELECT transaction_id, turn_index, rater_id "
            "FROM rating_assignments GROUP BY transaction_id, turn_index, rater_id "
            "HAVING count(*) > 1) t"
        ).fetchone()[0]
        reviewed = db.execute(
            "SELECT count(*) FROM captions WHERE status IN ('accepted', 'rejected')"
        ).fetchone()[0]
        rated = db.execute(
            "SELECT count(*) FROM rating_assignments WHERE status = 'done'"
        ).fetchone()[0]
        applied = {row[0] for row in db.execute("SELECT uid FROM server_edits")}
        live = db.execute(
            "SELECT count(*) FROM captions WHERE status IN ('submitted', 'accepted')"
        ).fetchone()[0]
        stored = {name: int(db.execute(
            "SELECT count(*) FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE a.name = :name AND c.status != 'draft'", {"name": name}).fetchone()[0])
            for name in studios}
    return {"over_quota": int(over), "twice": int(twice), "duplicated": int(duplicated),
            "applied": applied, "live": int(live), "self_reviews": int(self_reviews),
            "rated_twice": int(rated_twice), "reviewed": int(reviewed), "rated": int(rated),
            "stored": stored}


def build(url: str, work: Path, pairs: int, raters: list[str]) -> None:
    """Demo pairs to caption (quota 2) and, for the raters, a blind sample of the turns of
    four-image transactions, each turn to two raters."""
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
        if raters:
            _transactions(project, raters)
    copy_project(work / "lite", url)


def _transactions(project: Any, raters: list[str]) -> None:
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    by_category: dict[str, list[str]] = {}
    for image in project.iter_images():
        by_category.setdefault(image.category, []).append(image.id)
    chains = [
        Transaction("BenchSet", f"{category}-{n}", tuple(ids[n:n + 4]),
                    sequential_turns(["is red", "is longer", "has a v-neck"]))
        for category, ids in sorted(by_category.items()) for n in range(0, len(ids) - 3, 4)
    ]
    save_transactions(project, chains, "lead")
    create_sample(project, SampleOptions(raters=tuple(raters), share=1.0,
                                         per_item=min(2, len(raters))), "lead")


def _process_kind(pid: int, command: str) -> str | None:
    """The kind of a process of this bench, by its command line (None: not this bench's)."""
    if "b.person" in command:
        return "people"
    if "studio_writer" in command:
        return "studios"
    if "server start" in command or "spawn_main" in command or "multiprocessing" in command:
        return "server"
    if command.startswith("postgres") or "bin/postgres" in command:
        return "postgresql"
    return None


def _cpu_lines(cpu: dict[str, float], elapsed: float, requests: int) -> str:
    """Where the CPU time went over the timed window, and per request."""
    if not cpu:
        return ""
    kinds = [kind for kind in cpu if kind != "machine"]
    each = ", ".join(f"{kind} {cpu[kind]:.0f} CPU-s ({1000 * cpu[kind] / max(requests, 1):.1f} "
                     f"ms a request)" for kind in kinds)
    cores = os.cpu_count() or 1
    each_ms = 1000 * cpu["machine"] / max(requests, 1)
    busy = cpu["machine"] / max(elapsed * cores, 1e-9)
    return (f"\n\nWhere the CPU went in the {elapsed:.0f} s: {each}; the whole machine "
            f"{cpu['machine']:.0f} CPU-s of the {elapsed * cores:.0f} its "
            f"{cores} cores had. At {each_ms:.1f} ms of the machine's CPU a request (clients "
            f"included), its cores can answer at most {1000 * cores / each_ms:.0f} "
            f"requests/s; they were busy {100 * busy:.0f} % of the time (a request that "
            f"finds them busy waits its turn).")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--annotators", type=int, default=50,
                        help="people in all (reviewers and raters included)")
    parser.add_argument("--reviewers", type=int, default=6)
    parser.add_argument("--raters", type=int, default=6)
    parser.add_argument("--studios", type=int, default=2,
                        help="real desktop studios (offscreen processes) writing captions")
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--pace", type=float, default=1.0, help="scale of the human pauses")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    parser.add_argument("--project", help="an existing PostgreSQL project (else one is made)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--log", type=Path, help="keep the server's log here")
    parser.add_argument("--no-write", action="store_true", help="do not touch BENCHMARKS.md")
    args = parser.parse_args()

    import socket

    from bench.cpu_sampler import CpuSampler
    from bench.report import markdown_table, write_section
    from studio.server.tokens import add_token
    from studio.store import Project

    work = Path(tempfile.mkdtemp(prefix="cir-bench-server-"))
    pg = None
    server: subprocess.Popen | None = None
    desks: list[subprocess.Popen] = []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        url = args.project
        url_made = ""
        if url is None:
            import cir_pg_engine

            pg = cir_pg_engine.start_server(work / "pg")
            url_made = cir_pg_engine.new_database(pg.get_uri())
        writers = args.annotators - args.reviewers - args.raters
        if writers < 1:
            parser.error("--annotators counts everyone: leave room for at least one writer")
        roles = {**{f"annotator-{n:02d}": "annotator" for n in range(writers)},
                 **{f"reviewer-{n:02d}": "reviewer" for n in range(args.reviewers)},
                 **{f"rater-{n:02d}": "rater" for n in range(args.raters)}}
        people = list(roles)
        studios = [f"studio-{n}" for n in range(args.studios)]
        raters = [name for name, role in roles.items() if role == "rater"]
        if url is None:
            build(url_made, work, args.pairs, raters)
            url = url_made
        with Project.open(url) as project:
            keys = {name: add_token(project, name, role, "bench")
                    for name, role in {**roles, **dict.fromkeys(studios, "annotator")}.items()}
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "studio", "server", "start", "--project", url, "--port",
             str(port), "--workers", str(args.workers), "--lease-seconds", "60"],
            env=env, stdout=subprocess.DEVNULL, stderr=(work / "server.log").open("w"),
        )
        import urllib.request

        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        desks = [_start_studio(work, name, base, keys[name], args.pace, number, env)
                 for number, name in enumerate(studios)]
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", PERSON, roles[name], base, keys[name],
                 str(work / f"{name}.outbox"), str(args.pace), str(work / f"{name}.json")],
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for name in people
        ]
        _ready(desks + procs)
        sampler = CpuSampler(_process_kind)
        sampler.start()
        started = time.time()
        deadline = started + args.minutes * 60
        for proc in desks + procs:  # every studio and person starts now
            assert proc.stdin is not None
            with contextlib.suppress(OSError):  # one that died: reported as lost
                proc.stdin.write(f"{deadline}\n")
                proc.stdin.close()
        time.sleep(args.minutes * 30)
        workers = _children(server.pid)
        killed = None
        killed_at = time.time()
        for pid in workers:
            if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                killed = pid
                os.kill(pid, signal.SIGKILL)
                break
        for proc in procs:
            proc.wait()
        elapsed = time.time() - started
        cpu = sampler.stop()
        for desk in desks:
            try:
                desk.wait(timeout=180)
            except subprocess.TimeoutExpired:
                desk.kill()  # reported as a studio that died without a report
    finally:
        for desk in desks:
            if desk.poll() is None:
                desk.kill()
        if server is not None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    results = [json.loads((work / f"{name}.json").read_text()) for name in people
               if (work / f"{name}.json").exists()]
    reports = {name: json.loads((work / f"{name}.json").read_text()) for name in studios
               if (work / f"{name}.json").exists()}
    results += list(reports.values())
    found = check(url, 2, studios)
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
    missing = acknowledged - found["applied"]
    lost = len(missing) + sum(r["waiting"] for r in results)
    lost += args.annotators + args.studios - len(results)  # died without a report
    kinds = {uid: kind for r in results for uid, kind in r.get("kinds", {}).items()}
    lost_by_kind: dict[str, int] = {}
    for uid in missing:
        lost_by_kind[kinds.get(uid, "?")] = lost_by_kind.get(kinds.get(uid, "?"), 0) + 1
    for r in results:
        unanswered = [uid for uid, status in r["answers"].items() if not status]
        for uid in unanswered:
            lost_by_kind[kinds.get(uid, "?")] = lost_by_kind.get(kinds.get(uid, "?"), 0) + 1
    by_role = {role: sum(r["items"] for r in results if r.get("role") == role)
               for role in ("annotator", "reviewer", "rater")}
    requests = sum(len(v) for v in timings.values())
    windows = _by_window([r.get("ended", []) for r in results], started, WINDOW_S)
    desk_figures = _studio_figures(studios, reports, found)
    figures = {
        "annotators": args.annotators, "people": {
            "annotator": args.annotators - args.reviewers - args.raters,
            "reviewer": args.reviewers, "rater": args.raters},
        "minutes": args.minutes, "workers": args.workers,
        "killed_worker": killed is not None, "seconds": round(elapsed, 1),
        "requests": requests, "requests_per_s": round(requests / elapsed, 1),
        "p50_ms": {k: round(_percentile(v, 0.5), 1) for k, v in sorted(timings.items())},
        "p95_ms": {k: round(_percentile(v, 0.95), 1) for k, v in sorted(timings.items())},
        "submits_sent": by_role["annotator"], "items_done": found["live"],
        "reviews_sent": by_role["reviewer"], "captions_reviewed": found["reviewed"],
        "ratings_sent": by_role["rater"], "turns_rated": found["rated"],
        "answers": _statuses(results),
        "offline_retries": sum(r["offline"] for r in results),
        "offline_reasons": _merged([r.get("reasons", {}) for r in results]),
        "quota_violations": found["over_quota"] + found["twice"],
        "lost": lost, "lost_by_kind": lost_by_kind,
        "duplicates": found["duplicated"] + found["rated_twice"],
        "self_reviews": found["self_reviews"],
        "studios": desk_figures,
        "cpu_s": cpu,
        "killed_at_s": round(killed_at - started, 1),
        "by_window": windows,
    }
    print(json.dumps(figures, indent=1))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    if not args.no_write:
        rows = [[key, len(timings[key]), figures["p50_ms"][key], figures["p95_ms"][key]]
                for key in sorted(timings)]
        body = (
            f"{args.annotators} people as processes ({figures['people']['annotator']} "
            f"annotators, {args.reviewers} reviewers, {args.raters} raters) for "
            f"{args.minutes} min (pace "
            f"{args.pace}), `cir-studio server start --workers {args.workers}`, one worker "
            "killed with "
            f"SIGKILL halfway ({'done' if killed else 'no worker found'}); PostgreSQL 16 "
            "(pgserver wheel) and every process on this one machine.\n\n"
            f"Requests: {requests} in {elapsed:.0f} s = **{figures['requests_per_s']} "
            f"requests/s**; captions submitted: {figures['items_done']}; captions "
            f"reviewed: {figures['captions_reviewed']}; turns rated: "
            f"{figures['turns_rated']}; edit answers by "
            f"status: {figures['answers']}; retries while "
            f"a worker was down: {figures['offline_retries']}; quota violations: "
            f"**{figures['quota_violations']}**; lost edits: **{lost}**; duplicate "
            f"captions or ratings: **{figures['duplicates']}**; captions reviewed by their "
            f"author: **{figures['self_reviews']}**.\n\n"
            + _studio_lines(desk_figures)
            + markdown_table(["endpoint", "requests", "p50 ms", "p95 ms"], rows)
            + _window_lines(windows, killed_at - started)
            + _cpu_lines(cpu, elapsed, requests)
            + f"\n\nRun: `python bench/bench_server.py --annotators {args.annotators} "
            f"--reviewers {args.reviewers} --raters {args.raters} --studios {args.studios} "
            f"--minutes {args.minutes} --pace {args.pace} --pairs {args.pairs} "
            f"--workers {args.workers}`. The times "
            f"include queueing for the CPU: the server's workers, PostgreSQL and all "
            f"{args.annotators} client processes (and the studios) share this machine's "
            f"{os.cpu_count()} cores."
        )
        write_section("server", "Team server: annotators, reviewers and raters at once, "
                      "a worker killed (bench/bench_server.py)", body)
    return 0 if figures["lost"] == figures["duplicates"] == figures["quota_violations"] \
        == figures["self_reviews"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
