"""A revoked token stops working on a running team server: the worker trusts the tokens it
verified only until it hears of a revocation (``studio.store.token_watch``), and trusts
nothing while it cannot hear (its listening connection lost, or a SQLite project)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from server_support import Server, call, make_project, tokens

from studio.server.tokens import revoke
from studio.store import Project
from studio.store.token_watch import TokenWatch


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_a_token_the_worker_trusted_is_refused_once_another_program_revokes_it(
    postgresql_url: str, tmp_path: Path,
) -> None:
    make_project(postgresql_url, tmp_path)
    keys = tokens(postgresql_url, {"ann": "annotator", "bob": "annotator"})
    server = Server(postgresql_url).start()
    try:
        for _ in range(3):  # verified once, then answered from the worker's trust
            assert call(server.base, "GET", "/v1/whoami", keys["ann"])[0] == 200
        with Project.open(postgresql_url) as project:  # as `cir-studio server token revoke`
            revoke(project, "ann", "lead")
        assert eventually(lambda: call(server.base, "GET", "/v1/whoami", keys["ann"])[0] == 401)
        status, body = call(server.base, "POST", "/v1/captions/next", keys["ann"], {})
        assert status == 401 and "revoked" in body["error"]["message"]
        assert call(server.base, "GET", "/v1/whoami", keys["bob"])[0] == 200  # bob's stands
    finally:
        server.stop()


def _terminate_watch(url: str) -> int:
    with Project.open(url) as project:
        return len(project.db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'cir-token-watch' AND pid <> pg_backend_pid()"
        ).fetchall())


def test_the_watch_starts_a_new_generation_at_each_revocation_and_trusts_nothing_while_deaf(
    postgresql_url: str, tmp_path: Path,
) -> None:
    Project.create(postgresql_url, local_path=tmp_path / "p.pg").close()
    tokens(postgresql_url, {"ann": "annotator", "bob": "annotator"})
    with Project.open(postgresql_url) as project:
        watch = TokenWatch(project)
        try:
            first = watch.generation()
            assert first is not None  # listening: tokens verified now may be trusted
            assert watch.generation() == first  # nothing happened: still trusted
            with Project.open(postgresql_url) as other:
                revoke(other, "ann", "lead")
            assert eventually(lambda: watch.generation() not in (first, None))
            second = watch.generation()

            # Its connection is cut (a server restart, a proxy's timeout): revocations
            # sent meanwhile are never heard, so nothing verified before is trusted again.
            assert _terminate_watch(postgresql_url) == 1
            seen: set[object] = set()
            assert eventually(lambda: seen.add(watch.generation()) or (
                None in seen and watch.generation() is not None), seconds=15)
            assert watch.generation() not in (first, second)
        finally:
            watch.close()
        assert watch.generation() is None  # closed: every token is checked again


@pytest.mark.sqlite_only
def test_a_sqlite_project_trusts_no_verified_token(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.cirdb") as project:
        watch = TokenWatch(project)
        assert watch.generation() is None


def test_tokens_are_revoked_inside_a_write_transaction(tmp_path: Path) -> None:
    from studio.store.repos import server as server_repo

    with Project.create(tmp_path / "p.cirdb") as project, pytest.raises(RuntimeError):
        server_repo.revoke_tokens(project, "ann", "2026-11-29T00:00:00Z")
