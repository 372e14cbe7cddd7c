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
