"""Every write announces its kind after it commits; nothing is announced for a rollback."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from studio.captions.store import save_draft, submit_caption
from studio.errors import ProjectBusyError, ProjectReadOnlyError
from studio.pairs.mining import mine_pairs
from studio.project_events import ENTITY_KINDS, KINDS, kinds_for
from studio.store import Project
from studio.workspace import Workspace


class Heard:
    """Records each kind as it arrives, and whether the write was visible by then."""

    def __init__(self, project: Project) -> None:
        self.kinds: list[str] = []
        self.project = project
        self.counts: list[dict[str, int]] = []
        project.events.changed.connect(self.on_changed)

    def on_changed(self, kind: str) -> None:
        self.kinds.append(kind)
        self.counts.append(self.project.table_counts())


def test_mining_announces_pairs_after_the_commit(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as project:
        before = project.table_counts()["pairs"]
        heard = Heard(project)
        report = mine_pairs(project, "tfidf", 5, actor="ann")
        assert report.added > 0
        assert heard.kinds == ["pairs"]
        # A listener (on this thread) already sees the new pairs: it fired after the commit.
        assert heard.counts[0]["pairs"] == before + report.added


def test_a_caption_announces_captions_and_a_new_person_once(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 3, actor="ann")
        pair_id = project.db.execute("SELECT min(id) FROM pairs").fetchone()[0]
        heard = Heard(project)
        save_draft(project, pair_id, "newcomer", "is red")
        assert heard.kinds == ["people", "captions"]  # the newcomer, then their draft
        heard.kinds.clear()
        save_draft(project, pair_id, "newcomer", "is red with long sleeves")
        assert heard.kinds == ["captions"]  # the person exists: no people event
        heard.kinds.clear()
        submit_caption(project, pair_id, "newcomer", "is red with long sleeves")
        assert "captions" in heard.kinds


def test_a_rolled_back_write_announces_nothing(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        heard = Heard(project)
        with pytest.raises(RuntimeError), project.change("ann", "x", "pairs"):
            project.ensure_person("someone")
            raise RuntimeError("the body failed")
        assert heard.kinds == []
        assert project.people() == []
        project.set_meta("theme", "dark")
        assert heard.kinds == ["settings"]  # nothing left over from the rolled-back write


def test_nested_writes_are_heard_once_after_the_outer_commit(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        heard = Heard(project)
        with project.change("ann", "import", "dataset"):
            project.ensure_person("a")
            project.set_meta("k", "v")
            assert heard.kinds == []  # still inside the transaction
        assert heard.kinds == [
            k for k in KINDS if k in {"images", "pairs", "captions", "people", "settings"}
        ]


def test_a_write_from_another_thread_is_announced_on_that_thread(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        threads: list[str] = []
        project.events.people.connect(lambda: threads.append(threading.current_thread().name))
        worker = threading.Thread(target=project.ensure_person, args=("w",), name="job")
        worker.start()
        worker.join()
        assert threads == ["job"]


def test_every_audited_entity_has_kinds_and_an_unknown_one_refreshes_everything() -> None:
    for entity, kinds in ENTITY_KINDS.items():
        assert kinds and set(kinds) <= set(KINDS), entity
    assert kinds_for("captions") == ("captions",)
    assert kinds_for("something new") == KINDS  # too many refreshes beat a stale view


def test_closing_is_heard_while_the_project_is_still_open(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p")
    seen: list[str | None] = []
    project.events.closing.connect(lambda: seen.append(project.get_meta("name")))
    project.close()
    assert seen == ["p"]


def test_the_workspace_forwards_events_through_its_dispatcher(tmp_path: Path) -> None:
    workspace = Workspace()
    queued: list = []
    workspace.dispatch = queued.append  # a UI shell would run these on its own thread
    heard: list[str] = []
    workspace.events.changed.connect(heard.append)
    project = workspace.create_project(tmp_path / "p")
    project.set_meta("x", "1")
    assert heard == [] and len(queued) == 1
    queued.pop()()
    assert heard == ["settings"]
    closing: list[bool] = []
    workspace.events.closing.connect(lambda: closing.append(workspace.project is project))
    project.set_meta("x", "2")
    workspace.close_project()
    assert closing == [True]
    queued.pop()()  # a late event of a closed project reaches no view
    assert heard == ["settings"]
    workspace.settings.user_name = "Ana"
    workspace.save_settings()
    assert heard == ["settings", "settings"]


@pytest.mark.sqlite_only  # PostgreSQL: tests/unit/test_pg_engine.py
def test_a_locked_project_is_a_studio_error_and_nothing_is_written(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p") as project:
        blocker = sqlite3.connect(str(project.path), timeout=0)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            project.db.execute("PRAGMA busy_timeout = 50")
            with pytest.raises(ProjectBusyError, match="busy"):
                project.ensure_person("late")
        finally:
            blocker.rollback()
            blocker.close()
        assert project.people() == []


@pytest.mark.sqlite_only  # PostgreSQL: tests/unit/test_pg_engine.py
def test_a_read_only_project_is_a_studio_error(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p", name="kept") as project:
        # What a read-only file or share looks like to SQLite, without needing a non-root user.
        project.db.execute("PRAGMA query_only = ON")
        with pytest.raises(ProjectReadOnlyError, match="read-only"):
            project.set_meta("name", "renamed")
        assert project.name == "kept"


@pytest.mark.sqlite_only  # PostgreSQL hears other programs by LISTEN/NOTIFY (test_pg_engine)
def test_an_sqlite_project_hears_what_another_program_wrote_and_not_its_own(
    demo_project_dir: Path,
) -> None:
    """Two project objects on one file (a window, and the CLI in a terminal): each one's
    change watcher reports the kinds the other committed, once, and never its own."""

    from studio.simulation.outputs import store_run

    with Project.open(demo_project_dir) as window, Project.open(demo_project_dir) as terminal:
        heard = Heard(window)
        assert window.poll_changes() == []  # nothing yet: only the starting point
        assert terminal.poll_changes() == []
        store_run(terminal, "simulate", {"label": "sum"}, [], "cli")
        assert window.poll_changes() == ["experiments"]
        assert heard.kinds == ["experiments"]
        assert window.poll_changes() == []  # once
        store_run(window, "simulate", {"label": "own"}, [], "ann")  # heard locally already
        assert heard.kinds == ["experiments", "experiments"]
        assert window.poll_changes() == []
        mine_pairs(terminal, "tfidf", 3, actor="cli")
        assert window.poll_changes() == ["pairs"]
        assert terminal.poll_changes() == ["experiments"]  # the window's run, not its own

