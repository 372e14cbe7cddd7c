"""``cir-studio server start`` as deployed: behind a reverse proxy (``--forwarded-allow-ips``,
``--root-path``) the failed-login delay follows the client the trusted proxy names, and
only a trusted proxy's word counts; applied edits are forgotten after the retention the
coordinator sets (``--edits-retention-days``)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from server_support import Server, call, tokens

from studio.store import Project
from studio.store.repos import server as server_repo


def _project(url: str, folder: Path) -> str:
    with Project.create(url, local_path=folder / "p.pg"):
        pass
    return tokens(url, {"lead": "coordinator"})["lead"]



@pytest.fixture(autouse=True)
def real_login_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests measure the failed-login delay itself: the server they start gets the
    studio's own (the suite shortens it for every other test)."""
    monkeypatch.setenv("CIR_STUDIO_LOGIN_DELAY_MAX_S", "2.0")

def _failed_login(base: str, forwarded_for: str) -> float:
    """Seconds a wrong token takes to be refused, sent through a 'proxy' naming a client."""
    request = urllib.request.Request(base + "/v1/whoami")
    request.add_header("Authorization", "Bearer not-a-token")
    request.add_header("X-Forwarded-For", forwarded_for)
    started = time.monotonic()
    try:
        urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        assert error.code == 401
    return time.monotonic() - started


def _five_clients(base: str) -> list[float]:
    return [_failed_login(base, f"203.0.113.{n}") for n in range(1, 6)]


def test_a_trusted_proxy_names_the_client_the_delay_follows(postgresql_url: str,
                                                           tmp_path: Path) -> None:
    """Five people behind the proxy each mistype once: each waits the first delay (0.1 s),
    not the fifth failure's of one address (1.6 s); one client failing again waits longer
    each time."""
    key = _project(postgresql_url, tmp_path)
    server = Server(postgresql_url, args=("--forwarded-allow-ips", "127.0.0.1")).start()
    try:
        waits = _five_clients(server.base)  # 5 × 0.1 s, not 0.1, 0.2, 0.4, 0.8, 1.6
        assert waits[-1] < 1.2 and sum(waits) < 2.5, waits
        again = [_failed_login(server.base, "198.51.100.7") for _ in range(4)]
        assert again[-1] >= 0.8 and sum(again) >= 1.5
        assert call(server.base, "GET", "/v1/whoami", key)[0] == 200
    finally:
        server.stop()


def test_an_untrusted_peer_cannot_name_another_client(postgresql_url: str,
                                                      tmp_path: Path) -> None:
    """Without --forwarded-allow-ips (or from an address not listed) X-Forwarded-For is the
    client's own claim: the delay keys on the socket's peer, so a guesser who writes a new
    address into every request is slowed all the same."""
    _project(postgresql_url, tmp_path)
    for args in ((), ("--forwarded-allow-ips", "192.0.2.1")):
        server = Server(postgresql_url, args=args).start()
        try:
            waits = _five_clients(server.base)
            assert waits[-1] >= 1.6 and sum(waits) >= 3.1, waits  # 0.1, 0.2, 0.4, 0.8, 1.6
        finally:
            server.stop()


def test_root_path_is_the_prefix_the_proxy_serves_under(postgresql_url: str,
                                                        tmp_path: Path) -> None:
    key = _project(postgresql_url, tmp_path)
    server = Server(postgresql_url, args=("--root-path", "/cir")).start()
    try:
        status, document = call(server.base, "GET", "/openapi.json")
        assert status == 200 and document["servers"] == [{"url": "/cir"}]
        # a proxy that strips the prefix (nginx 'proxy_pass …/;') and one that keeps it
        assert call(server.base, "GET", "/v1/whoami", key)[0] == 200
        assert call(server.base, "GET", "/cir/v1/whoami", key)[0] == 200
    finally:
        server.stop()


def test_applied_edits_are_forgotten_after_the_retention(postgresql_url: str,
                                                         tmp_path: Path) -> None:
    """Edits applied 40 and 10 days ago go when the server starts with a 7-day retention;
    an hour-old one stays (a resent edit still applies once)."""
    _project(postgresql_url, tmp_path)
    now = datetime.now(UTC)
    ages = {"old-40-days": timedelta(days=40), "old-10-days": timedelta(days=10),
            "fresh-1-hour": timedelta(hours=1)}
    with Project.open(postgresql_url) as project, project.writing():
        for uid, age in ages.items():
            server_repo.record_edit(project, uid, "lead", 200, "{}",
                                    (now - age).isoformat(timespec="milliseconds"))
    server = Server(postgresql_url, args=("--edits-retention-days", "7")).start()
    server.stop()
    with Project.open(postgresql_url) as project:
        kept = [row[0] for row in project.db.execute("SELECT uid FROM server_edits")]
    assert kept == ["fresh-1-hour"]


def test_the_default_retention_is_thirty_days(postgresql_url: str, tmp_path: Path) -> None:
    from studio.server.app import prune_edits

    _project(postgresql_url, tmp_path)
    now = datetime.now(UTC)
    with Project.open(postgresql_url) as project:
        with project.writing():
            for days in (31, 29):
                server_repo.record_edit(project, f"aged-{days}-days", "lead", 200, "{}",
                                        (now - timedelta(days=days)).isoformat())
        server = Server(postgresql_url).start()
        server.stop()
        kept = [row[0] for row in project.db.execute("SELECT uid FROM server_edits")]
        assert kept == ["aged-29-days"]
        # what every worker runs each hour, a day later
        assert prune_edits(project, 30, now + timedelta(days=2)) == 1
        assert server_repo.edit_count(project) == 0
