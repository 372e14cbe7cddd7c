"""``project copy`` killed with SIGKILL at random moments leaves no half project.

The copy runs as a real ``cir-studio project copy`` process into a new SQLite file and
into an empty PostgreSQL database; it is killed after a random delay. Afterwards the
destination is either absent / empty (and a next copy into it works) or complete (and
``project check`` finds it identical to the source): never half a project.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import psycopg
from reliability_helpers import cli_process, make_pair_project

from studio.store.transfer import check_projects, copy_project


def _tables(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    return int(row[0]) if row else 0


def test_killed_copies_leave_nothing_half_done(tmp_path: Path, postgresql_server) -> None:  # noqa: ANN001
    import cir_pg_engine

    source = make_pair_project(tmp_path / "src", pairs=150)
    rng = random.Random(21)
    outcomes = []
    for round_number in range(4):
        target = tmp_path / f"copy{round_number}" / "project.cirdb"
        url = cir_pg_engine.new_database(postgresql_server.get_uri())
        for destination in (str(target), url):
            process = cli_process("project", "copy", source, destination)
            time.sleep(rng.uniform(0.5, 4.0))
            process.kill()
            process.communicate(timeout=60)
            complete = _tables(url) > 0 if destination == url else target.exists()
            if complete:
                assert check_projects(source, destination) == []
            else:
                copy_project(source, destination)  # nothing in the way: the copy can run again
                assert check_projects(source, destination) == []
                if destination != url:  # the killed build's temporary file is gone too
                    assert not list(target.parent.glob(".*creating*"))
            outcomes.append(complete)
    assert outcomes  # both outcomes are fine; a half copy fails above


def test_a_killed_postgresql_create_leaves_an_empty_database(
    tmp_path: Path, postgresql_server  # noqa: ANN001
) -> None:
    """``Project.create`` on PostgreSQL is one transaction: killed at any moment, the
    database is empty (create again works) or holds the complete project."""
    import subprocess
    import sys

    import cir_pg_engine
    from reliability_helpers import environment

    from studio.store import Project

    rng = random.Random(5)
    for attempt in range(4):
        url = cir_pg_engine.new_database(postgresql_server.get_uri())
        code = (
            "import sys; from pathlib import Path; from studio.store import Project; "
            "Project.create(sys.argv[1], 'Complete', local_path=Path(sys.argv[2])).close()"
        )
        process = subprocess.Popen(
            [sys.executable, "-c", code, url, str(tmp_path / f"p{attempt}" / "project.pg")],
            env=environment(),
        )
        time.sleep(rng.uniform(0.3, 3.0))
        process.kill()
        process.wait(timeout=60)
        if _tables(url) == 0:
            Project.create(url, "Complete", local_path=tmp_path / "again" / "project.pg").close()
        with Project.open(url) as project:
            assert project.name == "Complete"
