"""Shared fixtures. Tests run offscreen unless ``--headed`` is given (labelme's habit).

The core suites run in parallel under pytest-xdist (``dev.py test``: ``-n 2 --dist
loadfile``). Each worker is a process of its own with its own ``CIR_STUDIO_HOME``
subfolder, its own temp folders (pytest's basetemp/popen-gwN), its own throwaway
PostgreSQL server (``postgresql_server``: session scope is per worker) and its own
session templates; servers bind free ports (tests/unit/server_support.py). Only the
controller writes the ``CIR_STUDIO_TEST_FINISHED`` marker.
"""

from __future__ import annotations

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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tell ``dev.py test`` that this run reached its end (``CIR_STUDIO_TEST_FINISHED``): a
    process that dies without a summary (an ``os._exit`` reached by a test, a crash in Qt)
    may exit 0, and its unrun tests must not count as passed. Under xdist the controller
    writes it, after every worker reported (a worker's own end says nothing of the run)."""
    marker = os.environ.get("CIR_STUDIO_TEST_FINISHED")
    if marker and worker_id(session.config) is None:
        Path(marker).write_text(str(exitstatus), encoding="utf-8")


# The tests ``dev.py test`` runs on PostgreSQL as well as SQLite (marker ``engines``). Every
# other test opens its projects on SQLite only: the engine acts only inside
# ``studio/store``, and this set runs every line of it that the whole of tests/unit and
# tests/reliability runs on PostgreSQL (chosen by coverage, file by file, the cheapest
# first: docs/developer.md). A file named here that no longer exists stops the run.
BOTH_ENGINES = {
    # the store's contract: records, errors, migrations, events, order, copy, connections
    "tests/unit/test_store.py",
    "tests/unit/test_store_errors.py",
    "tests/unit/test_store_statements.py",
    "tests/unit/test_pg_engine.py",
    "tests/unit/test_migrations.py",
    "tests/unit/test_project_copy.py",
    "tests/unit/test_thread_connections.py",
    "tests/unit/test_project_events.py",
    "tests/unit/test_dataset_order.py",
    "tests/unit/test_captions.py",
    # rules several writers can break, kills mid-write, busy waits, damaged projects
    "tests/reliability/test_busy_writers.py",
    "tests/reliability/test_concurrent_captions.py",
    "tests/reliability/test_draft_migration.py",
    "tests/reliability/test_kill_copy.py",
    "tests/reliability/test_kill_writers.py",
    "tests/reliability/test_damaged_projects.py",
    # end to end: the team server (routes, hostile requests, deployment) and work packages
    "tests/unit/test_server_queue.py",
    "tests/unit/test_team_postgresql.py",
    "tests/unit/test_outfit_team.py",
    "tests/unit/test_quality_ratings.py",
    # features whose store calls none of the above makes (outfits, attributes, imports and
    # exports, sessions, runs, caches)
    "tests/unit/test_attribute_extract.py",
    "tests/unit/test_attribute_quality.py",
    "tests/unit/test_dashboard_data.py",
    "tests/unit/test_export_formats.py",
    "tests/unit/test_fashioniq_galleries.py",
    "tests/unit/test_fashionmt_authors.py",
    "tests/unit/test_fashionpedia.py",
    "tests/unit/test_hf_export.py",
    "tests/unit/test_image_measures.py",
    "tests/unit/test_import_circo.py",
    "tests/unit/test_import_formats.py",
    "tests/unit/test_outfit_editing.py",
    "tests/unit/test_outfit_suggest.py",
    "tests/unit/test_quality_target_rank.py",
    "tests/unit/test_sessions.py",
    "tests/unit/test_transactions.py",
    "tests/unit/test_vocabulary.py",
    # single tests of files that are slow as a whole: the only ones there that run store
    # code none of the files above runs (the team server's routes, merges, ranks, caches)
    "tests/unit/test_caption_ranks.py::test_captions_rank_command_ranks_every_caption_and_keeps_the_ranks",
    "tests/unit/test_caption_ranks.py::test_stored_rank_goes_stale_with_settings_index_or_text",
    "tests/unit/test_caption_ranks.py::test_the_gallery_holds_exactly_the_pairs_category_and_split",
    "tests/unit/test_chatir.py::test_a_search_space_of_ten_finds_every_target_at_round_zero",
    "tests/unit/test_chatir.py::test_dialogs_become_recorded_chat_sessions",
    "tests/unit/test_cli.py::test_demo_names_the_project_for_a_command[stats --demo --json]",
    "tests/unit/test_combiner_training.py::test_drafts_pair_each_target_as_the_miner_would",
    "tests/unit/test_combiner_training.py::test_no_triplets_is_one_clear_error",
    "tests/unit/test_index_service.py::test_added_and_changed_images_update_the_index",
    "tests/unit/test_index_service.py::test_unreadable_images_are_skipped_and_remembered",
    "tests/unit/test_salience.py::test_a_captioner_file_without_salience_loads_and_chooses_as_before",
    "tests/unit/test_server_client.py::test_one_client_used_from_two_threads_sends_each_edit_once",
    "tests/unit/test_server_client.py::test_two_tokens_on_one_machine_keep_separate_default_outboxes",
    "tests/unit/test_server_deployment.py::test_the_default_retention_is_thirty_days",
    "tests/unit/test_server_hostile.py::test_tokens_are_stored_hashed_and_revocable",
    "tests/unit/test_team.py::test_a_label_taken_back_is_removed_unless_the_project_changed_it",
    "tests/unit/test_team.py::test_caption_queues_keep_n_per_pair_from_different_people",
    "tests/unit/test_team.py::test_edits_left_in_a_packages_wal_by_a_crash_come_back",
    "tests/unit/test_team.py::test_every_record_of_a_worked_project_has_a_unique_global_id",
    "tests/unit/test_team.py::test_merging_twice_adds_nothing_and_progress_shows_what_came_back",
    "tests/unit/test_team.py::test_packages_of_another_project_or_a_newer_schema_are_refused",
    "tests/unit/test_team.py::test_vocabulary_edits_new_transactions_and_edited_turns_come_back",
    "tests/unit/test_review_queues.py::test_both_review_queues_answer_the_same_calls_alike[local]",
    "tests/unit/test_rating_queues.py::test_both_rating_queues_answer_the_same_calls_alike[local]",
    "tests/unit/test_attribute_review_queues.py::test_both_attribute_queues_answer_the_same_calls_alike[local]",
    "tests/unit/test_review_queues.py::test_the_team_server_keeps_its_rules_for_the_review_routes",
    "tests/unit/test_work_queue.py::test_both_queues_answer_the_same_calls_alike[local]",
    "tests/unit/test_work_queue.py::test_offline_the_team_queue_keeps_every_edit_and_says_why_no_pair_comes",
}

# The fixtures of a test that chooses PostgreSQL itself (see below).
OWN_SERVER = {"postgresql_server", "postgresql_url"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    files = {name.split("::")[0] for name in BOTH_ENGINES}
    missing = sorted(name for name in files if not (config.rootpath / name).is_file())
    if missing:
        raise pytest.UsageError(f"tests/conftest.py BOTH_ENGINES names no file: {missing}")
    engines = pytest.mark.engines
    collected = set()
    for item in items:
        if item.nodeid in BOTH_ENGINES or item.nodeid.split("::")[0] in BOTH_ENGINES:
            item.add_marker(engines)
            collected.add(item.nodeid)
    # A test named here that its file, collected in this run, no longer has (renamed or
    # removed: it would silently stop running on PostgreSQL).
    run_files = {item.nodeid.split("::")[0] for item in items}
    named = {name for name in BOTH_ENGINES if "::" in name and name.split("::")[0] in run_files}
    whole_run = config.option.markexpr == "engines" and not config.option.keyword
    gone = sorted(named - collected) if whole_run else []  # dev.py test's PostgreSQL phase
    if gone:
        raise pytest.UsageError(f"tests/conftest.py BOTH_ENGINES names no test: {gone}")
    has_cuda = any("gpu" in item.keywords for item in items) and cuda_device_present()
    if cir_pg_engine.engine_is_postgresql():
        sqlite_only = pytest.mark.skip(reason="tests SQLite's own file or pragmas")
        # A test that asks for a PostgreSQL server itself already runs on both engines in
        # the core suites (SQLite projects against that server); the same test again here
        # would only repeat it (the 32 writers, killed copies and creates: 100 s of 430).
        names_its_engines = pytest.mark.skip(
            reason="takes its own PostgreSQL server: runs with the core suites"
        )
        for item in items:
            if "sqlite_only" in item.keywords:
                item.add_marker(sqlite_only)
            elif OWN_SERVER & set(getattr(item, "fixturenames", ())):
                item.add_marker(names_its_engines)
    if has_cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def cuda_device_present() -> bool:
    """Whether torch sees a CUDA device. On Linux without an NVIDIA device node the answer
    is no without importing torch: that import is 5 CPU-seconds in each of the run's
    seven pytest processes, most of which never need torch otherwise."""
    if sys.platform.startswith("linux") and not any(Path("/dev").glob("nvidia[0-9]*")):
        return False
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


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
    cir_pg_engine.discard_server(server, folder)


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
