"""A thread's database connection is closed once the thread has ended, not kept until the
project closes (on PostgreSQL each one holds a server connection)."""

from __future__ import annotations

import threading
from pathlib import Path

from studio.store import Project


def _use_on_a_thread(project: Project) -> None:
    worker = threading.Thread(target=lambda: project.db.execute("SELECT 1").fetchone())
    worker.start()
    worker.join()


def test_connections_of_ended_threads_are_closed_when_the_next_one_opens(
    demo_project_dir: Path,
) -> None:
    with Project.open(demo_project_dir) as project:
        project.db.execute("SELECT 1").fetchone()  # this thread's connection
        for _ in range(5):
            _use_on_a_thread(project)
        # Each new thread's connection closed the one of the thread before it.
        assert len(project._connections) == 2
        owners = [owner for owner, _db in project._connections]
        assert threading.current_thread() in owners
        _use_on_a_thread(project)
        project.db.execute("SELECT count(*) FROM images").fetchone()  # still usable here
        assert len(project._connections) == 2


def test_closing_a_project_never_closes_a_connection_another_thread_is_using(
    demo_project_dir: Path,
) -> None:
    """A worker is between two statements of its query when the project closes: its
    connection stays usable until the worker itself touches a project again, and is
    closed then (closing it from the closing thread crashed the process)."""
    from studio.store import thread_connections

    project = Project.open(demo_project_dir)
    started, closed, done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def worker() -> None:
        db = project.db
        db.execute("SELECT count(*) FROM images").fetchone()
        started.set()
        closed.wait(5)
        seen["still_usable"] = db.execute("SELECT count(*) FROM pairs").fetchone()[0]
        with Project.open(demo_project_dir) as other:  # touching any project closes it
            other.db.execute("SELECT 1").fetchone()
        try:
            db.execute("SELECT 1").fetchone()
            seen["closed_after"] = False
        except Exception:  # noqa: BLE001 (sqlite3 or psycopg: a closed connection)
            seen["closed_after"] = True
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    assert started.wait(5)
    project.close()
    assert thread_connections.waiting() >= 1  # handed back to its owner, not closed here
    closed.set()
    assert done.wait(10)
    thread.join()
    assert isinstance(seen["still_usable"], int)
    assert seen["closed_after"] is True
    assert thread_connections.waiting() == 0
