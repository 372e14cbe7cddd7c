"""Programs the reliability suite runs as separate processes (and kills with SIGKILL).

Run as ``python tests/reliability/reliability_workers.py KIND ARGS…`` with the checkout on
``PYTHONPATH``. Each prints one line per acknowledged write (flushed at once), so the
test knows exactly which writes a killed process had been told were saved.
"""

from __future__ import annotations

import os
import random
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
        while not Path(go).exists():
            time.sleep(0.002)
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
        while not Path(go).exists():
            time.sleep(0.002)
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
             "create-killed": create_killed, "annotate-pairs": annotate_pairs}
    kinds[sys.argv[1]](*sys.argv[2:])
