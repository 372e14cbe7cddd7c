"""Writers killed with SIGKILL at random moments lose no acknowledged write.

Three processes write audited pair flags one after another on one project; one of them
is killed at a random moment, again and again. After each kill the file passes SQLite's
integrity check and every write any process had acknowledged is in it.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from reliability_helpers import has_traceback, integrity, make_pair_project, worker

from studio.store import Project


def acknowledged(output: str) -> set[int]:
    return {int(line.split()[1]) for line in output.splitlines() if line.startswith("ack ")}


def stored(path: Path, name: str) -> set[int]:
    with Project.open(path) as project:
        rows = project.db.execute(
            "SELECT after FROM audit_log WHERE action = 'flag' AND actor = :name",
            {"name": name},
        ).fetchall()
    reasons = [json.loads(after)["reason"] for (after,) in rows]
    return {int(reason.rsplit("-", 1)[1]) for reason in reasons}


@pytest.mark.slow
def test_killed_writers_lose_no_acknowledged_write(tmp_path: Path) -> None:
    path = make_pair_project(tmp_path / "p", pairs=4)
    rng = random.Random(7)
    kills = total_acked = 0
    for round_number in range(6):
        names = [f"w{round_number}-{n}" for n in range(3)]
        writers = [worker("flagger", path, name, 100000) for name in names]
        first = [writer.stdout.readline() for writer in writers]  # all are writing now
        time.sleep(rng.uniform(0.05, 1.0))
        victim = rng.randrange(3)
        writers[victim].kill()
        kills += 1
        time.sleep(rng.uniform(0.1, 0.4))
        for writer in writers:
            writer.kill()
        for name, writer in zip(names, writers, strict=True):
            writer.wait()
            out, err = writer.stdout.read(), writer.stderr.read()  # after the line read above
            assert not has_traceback(err), err
            acked = acknowledged(first[names.index(name)] + out)
            total_acked += len(acked)
            present = stored(path, name)
            assert acked <= present, f"{name} lost {sorted(acked - present)[:5]}"
            # Writes are sequential: at most the one in flight is present unacknowledged.
            assert len(present - acked) <= 1
        assert integrity(path) == "ok"
    assert kills == 6
    assert total_acked >= 18  # every writer was writing when it was killed
