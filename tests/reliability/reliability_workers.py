"""Programs the reliability suite runs as separate processes (and kills with SIGKILL).

Run as ``python tests/reliability/reliability_workers.py KIND ARGS…`` with the checkout on
``PYTHONPATH``. Each prints one line per acknowledged write (flushed at once), so the
test knows exactly which writes a killed process had been told were saved.
"""

from __future__ import annotations

import os
import random
import select
import signal
import sqlite3
import sys
import time
from pathlib import Path


def hold_lock(path: str, seconds: str, cycles: str = "1") -> None:
    """Another program writing: ``cycles`` times take the write lock, write, keep it
    ``seconds`` (``until-told``: until a line comes on stdin), commit and pause 0.3 s
    (a long import writing batch after batch).
    On the PostgreSQL test engine the write lock is the project's advisory lock."""
    url = _test_engine_url(path)
    if url is not None:
        import psycopg

        from studio.store.pg_database import WRITE_LOCK_KEY

        conn = psycopg.connect(url, autocommit=True)
        lock = f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})"
    else:
        conn = sqlite3.connect(path, isolation_level=None, timeout=60)
        lock = "SELECT 1"
    for cycle in range(int(cycles)):
        conn.execute("BEGIN IMMEDIATE" if url is None else "BEGIN")
        conn.execute(lock)
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('holder', 'x') "
            "ON CONFLICT (key) DO UPDATE SET value = meta.value || 'x'"
        )
        if cycle == 0:
            print("held", flush=True)
        if seconds == "until-told":
            sys.stdin.readline()
        else:
            time.sleep(float(seconds))
        conn.execute("COMMIT")
        time.sleep(0.3)
    conn.close()
    print("released", flush=True)


def _test_engine_url(path: str) -> str | None:
    """The PostgreSQL database a test-engine link file at ``path`` names (else None)."""
    try:
        import cir_pg_engine
    except ImportError:
        return None
    link = cir_pg_engine._read_link(Path(path))
    return None if link is None else link[0]


# In a child of ``fleet``: the pipes it says it is ready on and waits on for the start.
_FLEET_PIPES: tuple[int, int] | None = None


def wait_for_go(go: str) -> None:
    """Wait for the start: in a ``fleet``, until its start pipe closes (every child wakes
    at once, none spins); alone, until the file ``go`` appears."""
    if _FLEET_PIPES is not None:
        ready, start = _FLEET_PIPES
        os.write(ready, b"r")
        os.read(start, 1)  # b"" once the fleet closes the pipe's other end
        return
    while not Path(go).exists():
        time.sleep(0.002)


def fleet(spec: str) -> None:
    """Several workers at once as children forked from this process, which imported the
    store once: 32 writers' interpreters cost 40 CPU-seconds of imports started one by
    one, a fork costs milliseconds. SPEC is a JSON file of ``[name, kind, [args…]]``;
    each child writes what it prints to NAME.out and NAME.err beside it. Prints ``ready``
    when every child waits for the start, starts them all at once on a line from stdin,
    then prints ``NAME CODE`` per child as it ends (CODE: its exit code, or minus the
    signal that ended it)."""
    import json
    import traceback

    import studio.captions.store  # noqa: F401 - imported once, before the forks
    import studio.store  # noqa: F401

    global _FLEET_PIPES
    folder = Path(spec).parent
    workers = json.loads(Path(spec).read_text())
    ready_r, ready_w = os.pipe()
    start_r, start_w = os.pipe()
    kinds = {"annotate": annotate, "annotate-pairs": annotate_pairs}
    children = {}
    sys.stdout.flush()
    sys.stderr.flush()
    for name, kind, args in workers:
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            os.close(start_w)
            _FLEET_PIPES = (ready_w, start_r)
            for fd, suffix in ((1, "out"), (2, "err")):
                target = os.open(folder / f"{name}.{suffix}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(target, fd)
                os.close(target)
            code = 0
            try:
                kinds[kind](*map(str, args))
            except BaseException:  # noqa: BLE001 - reported as a process would report it
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        children[pid] = name
    os.close(ready_w)
    os.close(start_r)
    waiting, ended = len(children), {}
    while waiting and not ended:  # a child that ends before it is ready ends the wait
        if select.select([ready_r], [], [], 0.1)[0]:
            waiting -= len(os.read(ready_r, waiting))
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            ended[pid] = status
    print("ready", flush=True)
    sys.stdin.readline()
    os.close(start_w)  # every child's read returns now
    while len(ended) < len(children):
        pid, status = os.wait()
        ended[pid] = status
    for pid, status in ended.items():
        print(f"{children[pid]} {os.waitstatus_to_exitcode(status)}", flush=True)


def flagger(path: str, name: str, count: str) -> None:
    """Write ``count`` audited pair flags one after the other, acknowledging each."""
    from studio.captions.store import mark_pair
    from studio.store import Project

    with Project.open(Path(path)) as project:
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        for number in range(int(count)):
            mark_pair(project, pairs[number % len(pairs)], name, "flag", f"{name}-{number}")
            print(f"ack {number}", flush=True)


def annotate(path: str, name: str, go: str, seed: str, together: str = "0") -> None:
    """One annotator: a draft then a submit on every pair, in an order shared by all.

    Prints ``ready`` once loaded, then starts when the file ``go`` appears, so the
    annotators collide. With ``together`` = N it also waits, before each pair, until all
    N annotators have reached it (files in the folder ``go``.d): N people clicking Submit
    on one pair at the same moment. Prints ``submitted PAIR`` / ``refused PAIR`` per pair;
    any other error is a traceback.
    """
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import save_draft, submit_caption
    from studio.errors import StudioError
    from studio.store import Project

    with Project.open(Path(path)) as project:
        pairs = [row[0] for row in project.db.execute("SELECT id FROM pairs ORDER BY id")]
        random.Random(int(seed)).shuffle(pairs)
        policy = CaptionPolicy(per_pair=2, distinct_authors=True)
        print("ready", flush=True)
        wait_for_go(go)
        meeting = Path(go + ".d")
        for number, pair_id in enumerate(pairs):
            if int(together):
                meeting.mkdir(exist_ok=True)
                (meeting / f"{number}.{os.getpid()}").touch()
                while len(list(meeting.glob(f"{number}.*"))) < int(together):
                    time.sleep(0.001)
            save_draft(project, pair_id, name, f"{name} is typing on {pair_id}")
            try:
                submit_caption(project, pair_id, name, f"{name} wrote {pair_id}", policy)
            except StudioError as error:
                print(f"refused {pair_id} {error}", flush=True)
            else:
                print(f"submitted {pair_id}", flush=True)


def annotate_pairs(location: str, name: str, go: str, pair_ids: str) -> None:
    """One annotator on the given pairs only (ids, comma-separated), at a project path or
    URL: a draft then a submit on each, as ``annotate`` does; prints the same lines."""
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import save_draft, submit_caption
    from studio.errors import StudioError
    from studio.store import Project

    pairs = [int(pair) for pair in pair_ids.split(",")]
    with Project.open(location) as project:
        policy = CaptionPolicy(per_pair=2, distinct_authors=True)
        print("ready", flush=True)
        wait_for_go(go)
        for pair_id in pairs:
            save_draft(project, pair_id, name, f"{name} is typing on {pair_id}")
            try:
                submit_caption(project, pair_id, name, f"{name} wrote {pair_id}", policy)
            except StudioError as error:
                print(f"refused {pair_id} {error}", flush=True)
            else:
                print(f"submitted {pair_id}", flush=True)


WRITE_CALLS = {
    "connect",
    "execute",
    "executescript",
    "executemany",
    "commit",
    "close",
    "link",
    "replace",
    "rename",
    "unlink",
    "mkdir",
    "fsync",
}


def _is_write_call(function: object) -> bool:
    """A call into SQLite or the operating system that may change files."""
    if getattr(function, "__name__", "") not in WRITE_CALLS:
        return False
    owner = getattr(function, "__self__", None)
    return isinstance(owner, sqlite3.Connection | sqlite3.Cursor) or getattr(
        function, "__module__", ""
    ) in ("posix", "nt", "_sqlite3", "sqlite3")


def _forked_create(path: Path, image_root: Path, limit: int) -> tuple[int, int]:
    """``Project.create`` in a forked child killed before its ``limit``-th write call (0:
    never); returns the child's wait status and the calls it counted (when not killed)."""
    from studio.store import Project

    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: count, kill itself at the limit, or report the count
        os.close(reading)
        calls = 0

        def profile(frame, event, arg) -> None:  # noqa: ANN001 - sys.setprofile's signature
            nonlocal calls
            if event == "c_call" and _is_write_call(arg):
                calls += 1
                if calls == limit:
                    os.kill(os.getpid(), signal.SIGKILL)

        sys.setprofile(profile)
        Project.create(path, name="Complete", image_root=image_root).close()
        sys.setprofile(None)
        os.write(writing, str(calls).encode())
        os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        counted = pipe.read()
    _, status = os.waitpid(pid, 0)
    return status, int(counted or 0)


def create_killed(folder: str, image_root: str) -> None:
    """``Project.create`` killed (SIGKILL) just before each of its calls to SQLite or the
    file system in turn: every one of the first and last 30 and every 5th between (those
    are the statements of the one migration transaction in the temporary file, where a kill
    at any of them leaves the same thing: no project). Each attempt is a forked child of
    this process, which imported the store and made one project first, so an attempt costs
    a fork rather than a new interpreter (135 s to about 15 s). Prints ``calls N``, then
    ``K SIGNAL`` per attempt (the signal that ended the child, 0 if it exited)."""
    from studio.store import Project

    root, images = Path(folder), Path(image_root)
    Project.create(root / "warm" / "project.cirdb", name="Complete", image_root=images).close()
    status, calls = _forked_create(root / "count" / "project.cirdb", images, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    print(f"calls {calls}", flush=True)
    for kill_at in sorted({*range(1, 31), *range(31, calls - 30, 5),
                           *range(calls - 30, calls + 1)}):
        status, _ = _forked_create(root / f"k{kill_at}" / "project.cirdb", images, kill_at)
        print(kill_at, os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0, flush=True)


if __name__ == "__main__":
    kinds = {"hold-lock": hold_lock, "flagger": flagger, "annotate": annotate,
             "create-killed": create_killed, "annotate-pairs": annotate_pairs, "fleet": fleet}
    kinds[sys.argv[1]](*sys.argv[2:])
