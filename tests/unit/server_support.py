"""A real team server for tests: a throwaway PostgreSQL project with pairs, and
``cir-studio server start`` in a subprocess on a free local port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.captions.records import CaptionPolicy
from studio.captions.store import save_policy
from studio.demo.project import create_demo_project
from studio.pairs.mining import mine_pairs
from studio.server.client import Client
from studio.server.tokens import add_token
from studio.store import Project
from studio.store.transfer import copy_project

ROOT = Path(__file__).resolve().parents[2]


def make_project(url: str, folder: Path, n_pairs: int = 8, per_pair: int = 2) -> None:
    """A demo project with ``n_pairs`` mined pairs and no captions, copied to ``url``."""
    lite = folder / "lite"
    create_demo_project(lite, n_images=30, seed=0, attributes=False)
    with Project.open(lite) as project:
        save_policy(project, CaptionPolicy(per_pair, True), "lead")
        mine_pairs(project, "tfidf", n_pairs, actor="lead")
    copy_project(lite, url)


def tokens(url: str, people: dict[str, str]) -> dict[str, str]:
    """One token per person (name → role)."""
    with Project.open(url) as project:
        return {name: add_token(project, name, role, "lead") for name, role in people.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PortTaken(RuntimeError):
    """The server could not bind its port: another process took it after ``free_port``."""


class Server:
    """``cir-studio server start`` in a subprocess; ``stop`` / ``start`` on the same port."""

    def __init__(self, url: str, lease_seconds: float = 300.0, args: tuple[str, ...] = ()) -> None:
        self.url = url
        self.args = args
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.lease_seconds = lease_seconds
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
        """Start and wait until it answers. The first start of a server whose free port
        was taken meanwhile (another xdist worker's server) tries a new one."""
        for attempt in range(3):
            try:
                return self._start()
            except PortTaken:
                if self.started or attempt == 2:
                    raise
                self.port = free_port()
                self.base = f"http://127.0.0.1:{self.port}"
        raise AssertionError("unreachable")

    started = False

    def _start(self) -> Server:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), os.environ.get("PYTHONPATH", "")])}
        # Its log goes to a file: a pipe nobody reads fills up (64 KiB of tracebacks) and
        # the server then blocks in its logging, answering nothing.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (open while the server runs)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "studio", "server", "start", "--project", self.url,
             "--port", str(self.port), "--lease-seconds", str(self.lease_seconds),
             *self.args],
            env=env, stdout=subprocess.DEVNULL, stderr=self.log,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                stderr = self.stderr()
                if "address already in use" in stderr.lower():
                    raise PortTaken(stderr)
                raise RuntimeError(stderr or "server exited")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1):
                    self.started = True
                    return self
            except OSError:
                time.sleep(0.1)
        self.process.kill()
        self.process.wait()
        raise RuntimeError(f"the server did not start within 60 s: {self.stderr()[-3000:]}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None

    def stderr(self) -> str:
        """What the server wrote to its standard error so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def call(
    base: str, method: str, path: str, token: str | None = None, body: Any = None,
    raw: bytes | None = None, headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One request; the status and the JSON answer (4xx/5xx included)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@dataclass
class Served:
    """A queue under test and the project as it leaves it (to look inside)."""

    queue: Any
    opened: Callable[[], Project]


def build_lite(folder: Path) -> None:
    """The small two-person project the queue contracts run on (rae and ray)."""
    from studio.team.rehearsal import build_project

    build_project(folder, ("rae", "ray"), n_images=40, n_pairs=4).close()


def serve_both_ways(face: str, tmp_path: Path, role: str, postgresql_url: Callable[[], str],
                    local: Callable[[Project], Any],
                    remote: Callable[[Client], Any]) -> Iterator[Served]:
    """The lite project's queue for rae: ``local`` over the project opened here, or
    (``face`` "remote") ``remote`` over a client of a real server on a socket, the
    project copied into PostgreSQL and rae given ``role``."""
    build_lite(tmp_path / "lite")
    if face == "local":
        with Project.open(tmp_path / "lite") as project:
            yield Served(local(project), lambda: project)
        return
    url = postgresql_url()
    copy_project(tmp_path / "lite", url)
    key = tokens(url, {"rae": role})["rae"]
    server = Server(url).start()
    client = Client(server.base, key, tmp_path / "outbox.sqlite", timeout=5)
    opened: list[Project] = []

    def project() -> Project:
        opened.append(Project.open(url))
        return opened[-1]

    try:
        yield Served(remote(client), project)
    finally:
        for one in opened:
            one.close()
        client.close()
        server.stop()
