"""Shared fixtures. Tests run offscreen unless ``--headed`` is given (labelme's habit).

The core suites run in parallel under pytest-xdist (``dev.py test``: ``-n 2 --dist
loadfile``). Each worker is a process of its own with its own ``CIR_STUDIO_HOME``
subfolder, its own temp folders (pytest's basetemp/popen-gwN), its own throwaway
PostgreSQL server (``postgresql_server``: session scope is per worker) and its own
session templates; servers bind free ports (tests/unit/server_support.py). Only the
controller writes the ``CIR_STUDIO_TEST_FINISHED`` marker.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The PostgreSQL test engine (tests/pg_site): importable here, and in every subprocess
# a test starts (its ``sitecustomize`` installs the engine there).
PG_SITE = Path(__file__).resolve().parent / "pg_site"
sys.path.insert(0, str(PG_SITE))
import cir_pg_engine  # noqa: E402

# The real dataset slices live beside the checkout (``../shared/fixtures``); a checkout
# elsewhere (a git worktree) can point at them with CIR_STUDIO_FIXTURES.
SHARED_FIXTURES = Path(
    os.environ.get("CIR_STUDIO_FIXTURES")
    or Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--headed", action="store_true", help="show Qt windows on the real display")


# Waiting times (studio/timeouts.py) short enough that a test which waits one out does not
# idle for seconds, long enough that a loaded machine does not make a waiter give up early.
# Set before anything imports studio; subprocesses inherit them. A test of a default
# (tests/unit/test_timeouts.py) removes them.
TEST_TIMEOUTS = {
    "CIR_STUDIO_BUSY_TIMEOUT_MS": "2000",
    "CIR_STUDIO_PG_EVENTS_RETRY_S": "0.2",
    "CIR_STUDIO_LOGIN_DELAY_MAX_S": "0.2",
}
for _name, _value in TEST_TIMEOUTS.items():
    os.environ.setdefault(_name, _value)

# ``dev.py test`` names a folder here in its SQLite and PostgreSQL phases: the first notes
# which tests opened a project (on any engine, in any process), the second runs only those
# again (see ``pytest_collection_modifyitems``).
RECORD_VARIABLE = "CIR_STUDIO_TEST_ENGINE_RECORD"


def worker_id(config: pytest.Config) -> str | None:
    """The xdist worker's name (``gw0``…), or None in the controller or a plain run."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else str(workerinput["workerid"])


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("--headed"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    worker = worker_id(config)
    home = os.environ.get("CIR_STUDIO_HOME")
    if worker is not None and home:
        # Session fixtures run before ``studio_home``: per worker, never one shared folder.
        own = Path(home) / f"worker-{worker}"
        own.mkdir(parents=True, exist_ok=True)
        os.environ["CIR_STUDIO_HOME"] = str(own)
    if _recording(config):
        config.pluginmanager.register(OpenRecorder(config), "cir-open-recorder")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tell ``dev.py test`` that this run reached its end (``CIR_STUDIO_TEST_FINISHED``): a
    process that dies without a summary (an ``os._exit`` reached by a test, a crash in Qt)
    may exit 0, and its unrun tests must not count as passed. Under xdist the controller
    writes it, after every worker reported (a worker's own end says nothing of the run)."""
    marker = os.environ.get("CIR_STUDIO_TEST_FINISHED")
    if marker and worker_id(session.config) is None:
        Path(marker).write_text(str(exitstatus), encoding="utf-8")


def _recording(config: pytest.Config) -> bool:
    """The SQLite phase of ``dev.py test`` records, in the processes that run tests."""
    return (
        bool(os.environ.get(RECORD_VARIABLE))
        and not cir_pg_engine.engine_is_postgresql()
        and (worker_id(config) is not None or config.getoption("numprocesses", None) in
             (None, 0))
    )


class OpenRecorder:
    """Which tests call ``Project.create`` / ``Project.open`` (the two functions the
    PostgreSQL test engine replaces), in this process or a subprocess, in their setup, body
    or teardown, or through a fixture that did (a session template, a module's project).
    Written at the end as ``ran`` (every test that finished) and ``engine`` (those that
    opened a project); a worker that dies writes nothing, so its tests are run again."""

    def __init__(self, config: pytest.Config) -> None:
        self.folder = Path(os.environ[RECORD_VARIABLE])
        self.name = worker_id(config) or "main"
        self.logs = self.folder / f"opens-{self.name}"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.counter = itertools.count()
        self.current: Path | None = None
        self.ran: list[str] = []
        self.engine: list[str] = []
        self.engine_fixtures: set[str] = set()
        # Subprocesses note theirs through tests/pg_site/sitecustomize.py.
        os.environ["PYTHONPATH"] = os.pathsep.join(
            part for part in (str(PG_SITE), os.environ.get("PYTHONPATH", "")) if part
        )
        cir_pg_engine.record_opens()

    def _size(self) -> int:
        try:
            return self.current.stat().st_size if self.current else 0
        except FileNotFoundError:
            return 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.current = self.logs / f"{next(self.counter)}.log"
        os.environ[cir_pg_engine.OPEN_LOG_VARIABLE] = str(self.current)
        yield
        opened = self._size() > 0 or bool(self.engine_fixtures & set(item.fixturenames))
        if self.current is not None:
            self.current.unlink(missing_ok=True)
        self.ran.append(item.nodeid)
        if opened:
            self.engine.append(item.nodeid)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef) -> Iterator[None]:
        before = self._size()
        yield
        if self._size() > before:
            self.engine_fixtures.add(fixturedef.argname)

    def pytest_sessionfinish(self) -> None:
        record = {"ran": self.ran, "engine": self.engine}
        temporary = self.folder / f".record-{self.name}.tmp"
        temporary.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temporary, self.folder / f"record-{self.name}.json")


def engine_free_tests(folder: Path) -> set[str]:
    """Tests that the SQLite phase ran to the end without opening a project."""
    ran: set[str] = set()
    engine: set[str] = set()
    for path in folder.glob("record-*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        ran.update(record["ran"])
        engine.update(record["engine"])
    return ran - engine


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    record = os.environ.get(RECORD_VARIABLE)
    if record and cir_pg_engine.engine_is_postgresql() and worker_id(config) is None:
        free = engine_free_tests(Path(record))
        terminalreporter.write_line(
            f"{len(free)} tests opened no project in the SQLite phase: not run again here "
            "(the PostgreSQL engine acts only in Project.create / Project.open)."
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    record = os.environ.get(RECORD_VARIABLE)
    if record and cir_pg_engine.engine_is_postgresql():
        # The PostgreSQL phase: a test that opened no project in the SQLite phase runs the
        # same code here (the engine acts only inside Project.create / Project.open), so it
        # is deselected, and said so. No record (a phase run alone, a worker that died):
        # every test runs.
        free = engine_free_tests(Path(record))
        keep = [item for item in items if item.nodeid not in free]
        dropped = [item for item in items if item.nodeid in free]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if cir_pg_engine.engine_is_postgresql():
        sqlite_only = pytest.mark.skip(reason="tests SQLite's own file or pragmas")
        for item in items:
            if "sqlite_only" in item.keywords:
                item.add_marker(sqlite_only)
    if has_cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[Any]:
    """A throwaway PostgreSQL 16 server (pgserver wheel) on a Unix socket in a temp folder,
    stopped and deleted after the session. It fails, never skips: a run that was asked to
    test PostgreSQL and cannot must say so."""
    # Directly under the system temp folder, not pytest's: run as root, pgserver starts
    # the server as an unprivileged user, who cannot enter pytest's private folder (and
    # a Unix socket path must stay short).
    folder = Path(tempfile.mkdtemp(prefix="cir-pg-"))
    try:
        server = cir_pg_engine.start_server(folder / "data")
    except Exception as error:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"Cannot start PostgreSQL for the tests: {error}", pytrace=False)
    yield server
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgresql_url(postgresql_server: Any) -> str:
    """A fresh, empty database on the test server (its URL)."""
    return cir_pg_engine.new_database(postgresql_server.get_uri())


@pytest.fixture(scope="session", autouse=True)
def test_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """``CIR_STUDIO_TEST_ENGINE=postgresql``: every project the tests create by path lives
    on PostgreSQL (see tests/pg_site/cir_pg_engine.py); otherwise SQLite, untouched."""
    if not cir_pg_engine.engine_is_postgresql():
        yield "sqlite"
        return
    server = request.getfixturevalue("postgresql_server")
    os.environ[cir_pg_engine.SERVER_VARIABLE] = server.get_uri()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(PG_SITE), os.environ.get("PYTHONPATH", "")) if part
    )
    cir_pg_engine.install()
    yield "postgresql"


@pytest.fixture(autouse=True)
def studio_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own per-user folder, never the real home."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CIR_STUDIO_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo project drawn once per session (60 images, seed 0, no labels yet)."""
    from studio.demo.project import create_demo_project

    folder = tmp_path_factory.mktemp("demo-template") / "demo"
    create_demo_project(folder, n_images=60, seed=0, attributes=False)
    return folder


@pytest.fixture
def demo_project_dir(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the small demo project that a test may change."""
    target = tmp_path / "demo"
    shutil.copytree(demo_template, target)
    return target


@pytest.fixture
def fashioniq_fixtures() -> Path:
    path = SHARED_FIXTURES / "fashioniq"
    if not path.is_dir():
        pytest.skip(f"shared Fashion IQ fixtures not found at {path}")
    return path


@pytest.fixture
def cirr_fixtures() -> Path:
    path = SHARED_FIXTURES / "cirr"
    if not path.is_dir():
        pytest.skip(f"shared CIRR fixtures not found at {path}")
    return path


@pytest.fixture
def chatir_fixtures() -> Path:
    path = SHARED_FIXTURES / "chatir"
    if not path.is_dir():
        pytest.skip(f"shared ChatIR fixtures not found at {path}")
    return path


@pytest.fixture(scope="session")
def demo_model():
    """The shipped demo model, loaded once per test session (CPU)."""
    from backends.models.registry import load_model

    return load_model("demo", device="cpu")


@pytest.fixture(scope="session")
def indexed_demo_template(demo_template: Path, demo_model, tmp_path_factory) -> Path:
    """The small demo project with text-extracted attributes and a demo-model index."""
    from studio.attributes.extract import extract_from_text
    from studio.index_service import build_index
    from studio.store import Project

    folder = tmp_path_factory.mktemp("indexed-demo") / "demo"
    shutil.copytree(demo_template, folder)
    with Project.open(folder) as project:
        extract_from_text(project, "tests")
        build_index(project, demo_model)
    return folder


@pytest.fixture
def indexed_demo_dir(indexed_demo_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "indexed-demo"
    shutil.copytree(indexed_demo_template, target)
    return target


@pytest.fixture(scope="session")
def captioned_template(indexed_demo_template: Path, tmp_path_factory) -> Path:
    """The small indexed demo with TF-IDF pairs in train and val, two simulated captions
    each: enough to train a combiner on (unit, GUI and close-during-training tests)."""
    from studio.pairs.mining import mine_pairs
    from studio.simulation.simulated_captions import caption_pairs
    from studio.store import Project

    folder = tmp_path_factory.mktemp("captioned") / "demo"
    shutil.copytree(indexed_demo_template, folder)
    with Project.open(folder) as project:
        for split in ("train", "val"):
            mine_pairs(project, "tfidf", 1000, split=split, actor="tests")
        assert caption_pairs(project, per_pair=2) > 40
    return folder
