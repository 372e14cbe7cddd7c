"""Waiting times are settable (studio/timeouts.py): one environment variable each, with the
documented default when unset and a clear refusal of a value that is not a number."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studio import timeouts
from studio.errors import StudioError
from studio.store import Project

ROOT = Path(__file__).resolve().parents[2]

WRITE = """
import sys, time
from studio.errors import ProjectBusyError
from studio.store import Project
project = Project.open(sys.argv[1])
started = time.monotonic()
try:
    project.set_meta("waited", "yes")
except ProjectBusyError:
    print(f"busy after {time.monotonic() - started:.2f}")
else:
    print("written")
"""


def write_while_locked(path: Path, env: dict[str, str]) -> str:
    """Another program holds the write lock while a process with ``env`` writes."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = subprocess.run(
            [sys.executable, "-c", WRITE, str(path)], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env}, timeout=120,
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.sqlite_only
def test_the_busy_timeout_is_what_the_environment_says(tmp_path: Path) -> None:
    Project.create(tmp_path / "p").close()
    path = tmp_path / "p" / "project.cirdb"
    started = time.monotonic()
    answer = write_while_locked(path, {"CIR_STUDIO_BUSY_TIMEOUT_MS": "300"})
    assert answer.startswith("busy after ")
    waited = float(answer.split()[-1])
    assert 0.25 <= waited < 2.0, answer  # not the 5 s default
    assert time.monotonic() - started < 60


def test_unset_waits_have_their_documented_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("CIR_STUDIO_") and
                 name.endswith(("_MS", "_S", "_SECONDS"))]:
        monkeypatch.delenv(name)
    assert timeouts.busy_timeout_ms() == 5000
    assert timeouts.busy_retry_ms() == 250
    assert timeouts.cache_lock_timeout_s() == 30
    assert timeouts.pg_events_retry_s() == 1.0
    assert timeouts.lease_seconds() == 300
    assert timeouts.client_timeout_s() == 10
    assert timeouts.login_delay_max_s() == 2.0


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan"])
def test_a_wait_that_is_not_a_positive_number_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CIR_STUDIO_LEASE_SECONDS", value)
    with pytest.raises(StudioError, match="CIR_STUDIO_LEASE_SECONDS must be a positive number"):
        timeouts.lease_seconds()


def test_the_server_lease_default_comes_from_the_environment() -> None:
    code = ("from studio.cli.main import build_parser; print(build_parser().parse_args("
            "['server', 'start', '--project', 'postgresql://h/db']).lease_seconds)")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CIR_STUDIO_LEASE_SECONDS": "42"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42.0"
