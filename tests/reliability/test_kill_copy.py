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
