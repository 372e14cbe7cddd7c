"""The real team server for GUI tests: the unit suite's helpers (a throwaway PostgreSQL
project, ``cir-studio server start`` over a socket), and ``team_server``, the fixture that
starts one for a test and stops it when the test ends (tests/gui/conftest.py offers it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.unit.server_support import Server, call, make_project, tokens

__all__ = ["Server", "StartServer", "call", "make_project", "team_server", "tokens"]

StartServer = Callable[..., tuple[Server, dict[str, str]]]


@pytest.fixture
def team_server(postgresql_url: str, tmp_path: Path) -> Iterator[StartServer]:
    """``team_server(people, pairs=N, per_pair=2, lease_seconds=300)`` gives a dict of
    name → role one token each, starts the server on the test's PostgreSQL project and
    returns ``(server, keys)``. With ``pairs`` it first makes that project (the demo with
    N mined pairs, ``per_pair`` captions wanted each); without, the test made its own.
    The server is stopped when the test ends, after the test's own ``stop``/``start``."""
    started: list[Server] = []

    def start(
        people: dict[str, str],
        pairs: int | None = None,
        per_pair: int = 2,
        lease_seconds: float = 300.0,
    ) -> tuple[Server, dict[str, str]]:
        if pairs is not None:
            make_project(postgresql_url, tmp_path, n_pairs=pairs, per_pair=per_pair)
        keys = tokens(postgresql_url, people)
        server = Server(postgresql_url, lease_seconds=lease_seconds).start()
        started.append(server)
        return server, keys

    yield start
    for server in started:
        server.stop()
