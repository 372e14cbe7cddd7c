"""The PostgreSQL engine: chosen by URL, same rules, same errors, events across projects."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from studio.errors import ProjectBusyError, ProjectError
from studio.store import Project
from studio.store.engines import engine_for
from studio.store.errors import StoreUnreachable


def test_location_picks_the_engine(tmp_path: Path) -> None:
    assert engine_for(tmp_path / "p.cirdb") == "sqlite"
    assert engine_for("postgresql://me@db.example/cir") == "postgresql"
    with pytest.raises(ProjectError, match="mysql://"):
        engine_for("mysql://me@db/cir")


def test_project_lives_in_postgresql(postgresql_url: str, tmp_path: Path) -> None:
    with Project.create(postgresql_url, "Team", local_path=tmp_path / "project.pg") as project:
        assert project.engine == "postgresql"
        ann = project.ensure_person("ann")
        assert project.ensure_person("ann") == ann
        assert project.image_root == tmp_path / "images"
        assert project.cache_dir == tmp_path / "project.cache"
    with Project.open(postgresql_url) as again:
        assert again.name == "Team"
        assert [p.name for p in again.people()] == ["ann"]
        assert again.path == tmp_path / "project.pg"


def test_create_refuses_a_non_empty_database(postgresql_url: str, tmp_path: Path) -> None:
    Project.create(postgresql_url, local_path=tmp_path / "project.pg").close()
    with pytest.raises(ProjectError, match="not empty"):
        Project.create(postgresql_url, local_path=tmp_path / "project.pg")


def test_a_failed_statement_undoes_only_itself(postgresql_url: str, tmp_path: Path) -> None:
    """A constraint error caught around a nested ``atomic()`` (a savepoint) leaves the
    transaction usable, on PostgreSQL as on SQLite."""
    from studio.store.errors import RecordRejected

    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        with project.writing("people"):
            project.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES (:name, :role, :created_at)", {
                    "name": "a",
                    "role": "admin",
                    "created_at": "t",
                }
            )
            with pytest.raises(RecordRejected), project.db.atomic():
                project.db.execute(
                    "INSERT INTO people (name, role, created_at) VALUES (:name, :role, :created_at)",
                    {"name": "a", "role": "admin", "created_at": "t"},
                )
            project.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES (:name, :role, :created_at)", {
                    "name": "b",
                    "role": "admin",
                    "created_at": "t",
                }
            )
        assert [p.name for p in project.people()] == ["a", "b"]


def test_writers_on_different_records_do_not_wait_for_each_other(
    postgresql_url: str, tmp_path: Path
) -> None:
    """No lock on the whole project: a write commits while another is still open."""
    project = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    other = Project.open(postgresql_url)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with project.writing("people"):
            project.db.execute("INSERT INTO people (name, role, created_at) VALUES ('h', 'admin', 't')")
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    try:
        other.ensure_person("meanwhile")  # does not wait for the open transaction
        assert not release.is_set() and thread.is_alive()
        assert other.db.busy_waits == 0
    finally:
        release.set()
        thread.join()
    assert {p.name for p in other.people()} == {"h", "meanwhile"}
    project.close()
    other.close()


def test_a_whole_project_operation_makes_writers_wait_then_busy_is_one_clear_line(
    postgresql_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studio.store import pg_database

    project = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    other = Project.open(postgresql_url)
    holding, release = threading.Event(), threading.Event()

    def hold(name: str = "h") -> None:
        with project.writing("people", whole=True):  # a team merge
            project.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES (:name, 'admin', 't')", {
                    "name": name,
                }
            )
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    threading.Timer(0.3, release.set).start()
    other.ensure_person("waited")  # waits for the whole-project operation, then writes
    thread.join()
    assert {p.name for p in other.people()} == {"h", "waited"}
    assert other.db.busy_waits == 1

    monkeypatch.setattr(pg_database, "LOCK_TIMEOUT_MS", 200)
    impatient = Project.open(postgresql_url)
    release.clear()
    holding.clear()
    thread = threading.Thread(target=hold, args=("h2",))
    thread.start()
    holding.wait(10)
    with pytest.raises(ProjectBusyError, match="busy"):
        impatient.ensure_person("late")
    release.set()
    thread.join()
    for opened in (project, other, impatient):
        opened.close()


@contextmanager
def ann_holds_a_pair(url: str, tmp_path: Path) -> Iterator[tuple[Project, int, threading.Event]]:
    """A project of one pair, and a second opening of it (yielded) while ann's draft
    transaction on that pair stays open until the yielded event is set."""
    from studio.store.records import ImageRecord
    from studio.store.repos import captions as captions_repo

    project = Project.create(url, local_path=tmp_path / "project.pg")
    project.add_images(ImageRecord(id=f"im{i}", path=f"im{i}.jpg") for i in range(2))
    with project.writing("pairs"):
        pair = project.db.execute(
            "INSERT INTO pairs (reference_id, target_id, external_key, created_at) "
            "VALUES ('im0', 'im1', 'k', 'now') RETURNING id"
        ).fetchone()[0]
    ann = project.ensure_person("ann")
    other = Project.open(url)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with project.writing("captions"):
            captions_repo.write_draft(project, pair, ann.id, "ann types", "now")
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    try:
        yield other, pair, release
    finally:
        release.set()
        thread.join()
        project.close()
        other.close()


def test_writers_on_one_pair_take_turns_then_busy_is_one_clear_line(
    postgresql_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pair a caption rule is about is locked: a second writer on it waits for the
    first, past ``lock_timeout`` it gets the busy error (and nothing of it is written)."""
    from studio.captions.store import own_caption, save_draft
    from studio.store import pg_database

    monkeypatch.setattr(pg_database, "LOCK_TIMEOUT_MS", 300)
    with ann_holds_a_pair(postgresql_url, tmp_path) as (other, pair, release):
        with pytest.raises(ProjectBusyError, match="busy"):
            save_draft(other, pair, "bob", "bob types")
        assert own_caption(other, pair, "bob") is None
        monkeypatch.setattr(pg_database, "LOCK_TIMEOUT_MS", 10_000)
        release.set()
        with Project.open(postgresql_url) as patient:
            save_draft(patient, pair, "bob", "bob types")  # waits for ann, then writes
        assert own_caption(other, pair, "bob") is not None


def test_a_pair_another_writer_holds_is_still_handed_out_when_it_is_the_last(
    postgresql_url: str, tmp_path: Path
) -> None:
    """The "next pair" scan passes over pairs other writers hold, but when nothing else is
    left it waits for them: ann saving a draft on the last pair does not tell bob that
    there is no work (a CI run of the team server ended with one pair short of its quota)."""
    from studio.store.repos import server as server_repo

    with ann_holds_a_pair(postgresql_url, tmp_path) as (other, pair, release):
        threading.Timer(0.3, release.set).start()
        with other.writing():
            found = server_repo.next_pair_to_lease(other, "bob", 2, True, time.time())
        assert found == pair


def test_caption_event_reaches_another_project_object(postgresql_url: str, tmp_path: Path) -> None:
    """Two studios on one PostgreSQL project: one's write is the other's event."""
    writer = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    reader = Project.open(postgresql_url)
    heard, changed = threading.Event(), []
    reader.events.captions.connect(heard.set)
    reader.events.changed.connect(changed.append)
    mine: list[str] = []
    writer.events.changed.connect(mine.append)
    with writer.change("ann", "write", "caption") as record:
        record["after"] = {"text": "is red"}
    assert heard.wait(5), "the other project object never heard of the caption"
    assert "captions" in changed and "images" not in changed
    time.sleep(0.3)
    assert mine.count("captions") == 1  # its own NOTIFY is not heard twice
    reader.close()
    writer.close()


def test_a_project_nobody_listens_to_starts_no_listener_until_somebody_does(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A team server's worker or a command hears nobody's commits: no thread and no
    connection of its own, which every commit on the database would wake. The first view
    that listens starts it and hears what follows; a closed project starts none again."""

    def listeners() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "cir-pg-events"]

    writer = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    reader = Project.open(postgresql_url)
    with writer.change("ann", "write", "caption") as record:
        record["after"] = {"text": "is red"}
    assert listeners() == []
    heard = threading.Event()
    reader.events.captions.connect(heard.set)
    assert len(listeners()) == 1
    reader.events.changed.connect(lambda kind: None)  # a second view: still one listener
    assert len(listeners()) == 1
    with writer.change("bob", "write", "caption") as record:
        record["after"] = {"text": "is blue"}
    assert heard.wait(5), "the listening project never heard the caption"
    reader.close()
    assert listeners() == []
    reader.events.people.connect(lambda: None)
    assert listeners() == []
    writer.close()


def test_a_studio_window_on_a_postgresql_project_hears_another_program(
    postgresql_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's workspace opens the project, then listens to it: that connect starts
    the listener, and a commit of another project object reaches the window's views."""
    from studio.workspace import Workspace

    monkeypatch.setenv("CIR_STUDIO_HOME", str(tmp_path / "home"))
    writer = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    workspace = Workspace()
    heard: list[str] = []
    arrived = threading.Event()
    workspace.events.changed.connect(lambda kind: (heard.append(kind), arrived.set()))
    workspace.open_project(postgresql_url)
    with writer.change("bob", "write", "caption") as record:
        record["after"] = {"text": "has a hood"}
    assert arrived.wait(5), "the window never heard the other program's caption"
    assert "captions" in heard
    workspace.close_project()
    writer.close()


def test_an_audit_row_knows_the_uid_of_the_record_it_is_about(
    postgresql_url: str, tmp_path: Path
) -> None:
    """The audit trigger (revision 0004_audit_lookup) finds the uid of the caption, pair or
    transaction turn a row is about; an id that is no number, one that names nothing and
    a kind of record without a uid give none. Every row gets its own uid and this
    copy's origin."""
    from studio.captions.store import save_draft
    from studio.store.records import ImageRecord
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        project.add_images(ImageRecord(id=f"im{i}", path=f"im{i}.jpg") for i in range(3))
        with project.writing("pairs"):
            pair = project.db.execute(
                "INSERT INTO pairs (reference_id, target_id, external_key, created_at) "
                "VALUES ('im0', 'im1', 'k', 'now') RETURNING id").fetchone()[0]
        caption = save_draft(project, pair, "ann", "is red").id
        save_transactions(project, [Transaction("T", "k", ("im0", "im1", "im2"),
                                                sequential_turns(["is red", "is long"]))], "ann")
        turn = project.db.execute(
            "SELECT transaction_id, turn_index, uid FROM transaction_turns "
            "ORDER BY turn_index DESC LIMIT 1").fetchone()
        about = [("caption", caption), ("pair", pair), ("transaction_turn", f"{turn[0]}:{turn[1]}"),
                 ("pair", "x1"), ("caption", 999999), ("image", "im0")]
        for entity, entity_id in about:
            with project.change("ann", "looked_up", entity, entity_id) as record:
                record["after"] = {"n": 1}
        rows = project.db.execute(
            "SELECT entity_uid, uid, origin_copy FROM audit_log WHERE action = 'looked_up' "
            "ORDER BY id").fetchall()
        uid_of = {table: project.db.execute(f"SELECT uid FROM {table} WHERE id = :id",
                                            {"id": key}).fetchone()[0]
                  for table, key in (("captions", caption), ("pairs", pair))}
        origin = project.get_meta("origin_id")
    assert [row[0] for row in rows] == [uid_of["captions"], uid_of["pairs"], turn[2],
                                        None, None, None]
    assert len({row[1] for row in rows}) == len(rows) and all(row[1] for row in rows)
    assert {row[2] for row in rows} == {origin}


def test_a_newer_schema_is_refused_untouched(postgresql_url: str, tmp_path: Path) -> None:
    import psycopg

    from studio.errors import SchemaTooNewError
    from studio.store.migrations import LATEST_VERSION

    Project.create(postgresql_url, local_path=tmp_path / "project.pg").close()
    with psycopg.connect(postgresql_url, autocommit=True) as conn:
        conn.execute("UPDATE cir_schema SET version = %s", [LATEST_VERSION + 1])
    with pytest.raises(SchemaTooNewError, match="newer CIR Studio"):
        Project.open(postgresql_url)


def test_a_dropped_connection_is_one_clear_error_then_reconnects(
    postgresql_url: str, tmp_path: Path
) -> None:
    import psycopg

    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        project.ensure_person("before")
        pid = project.pg_db.raw.info.backend_pid
        with psycopg.connect(postgresql_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        with pytest.raises(StoreUnreachable, match="Cannot reach the PostgreSQL project") as error:
            project.ensure_person("lost")
        assert "psycopg" not in str(error.value)
        project.ensure_person("after")
        assert {p.name for p in project.people()} == {"before", "after"}


def test_a_read_only_account_is_a_studio_error(postgresql_url: str, tmp_path: Path) -> None:
    from studio.errors import ProjectReadOnlyError

    with Project.create(postgresql_url, "kept", local_path=tmp_path / "project.pg") as project:
        # What an account with read-only rights looks like, without making a role.
        project.db.execute("SET default_transaction_read_only = on")
        with pytest.raises(ProjectReadOnlyError, match="read"):
            project.set_meta("name", "renamed")
        assert project.name == "kept"


def test_another_process_write_is_heard(postgresql_url: str, tmp_path: Path) -> None:
    """A studio in another process (another machine, for all the server knows)."""
    import os
    import subprocess
    import sys

    reader = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    heard = threading.Event()
    reader.events.captions.connect(heard.set)
    code = (
        "import sys; from studio.store import Project\n"
        "with Project.open(sys.argv[1]) as p:\n"
        "    with p.change('bob', 'write', 'caption') as r: r['after'] = 'has a hood'\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", code, postgresql_url], env=env, check=True)
    assert heard.wait(5), "the write of the other process was not heard"
    reader.close()


def _round_trips(project: Project, work: Callable[[], object], folder: Path) -> int:
    """How many times ``work`` waited for the PostgreSQL server: the simple queries and the
    Syncs of extended queries its connection sent (libpq's own protocol trace)."""
    from psycopg import pq

    pgconn = project.pg_db.raw.pgconn
    trace = folder / "trace.txt"
    with open(trace, "w") as handle:
        pgconn.trace(handle.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            work()
        finally:
            pgconn.untrace()
    sent = [line.split("\t") for line in trace.read_text().splitlines()]
    return sum(1 for fields in sent if fields[0] == "F" and fields[2] in ("Query", "Sync"))


def test_a_caption_label_and_rating_take_few_round_trips(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A team of 100 on one server: every write waits for the database once per round
    trip. A caption (draft saved, then submitted), a label decision and a rating take at
    most 3, 2 and 2 (they took 29, 7 and 6, then 12, 5 and 4, then 8, 3 and 2: 3.1 ms a
    write where 1 ms is the goal). A row lock, the reads that must follow it and a write
    whose answer is read after the commit or not at all travel with the transaction's
    next statement or its COMMIT: the draft's lock and upsert with its COMMIT, the
    submit's lock, pair captions and policy in one trip and its UPDATE, audit row and
    COMMIT in the next;
    a label's vocabulary and state before are one statement sent with its BEGIN; a
    person read inside a committed transaction is not asked for again; a rating's item
    and its saved scores are one statement."""
    from studio.attributes.labels import review
    from studio.attributes.vocabulary import add_attribute
    from studio.captions.store import own_caption, save_draft, submit_caption
    from studio.quality.ratings import next_item, save_scores
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.store.records import ImageRecord
    from studio.transactions.records import Transaction, sequential_turns
    from studio.transactions.store import save_transactions

    project = Project.create(postgresql_url, local_path=tmp_path / "project.pg")
    project.add_images(ImageRecord(id=f"im{i}", path=f"im{i}.jpg") for i in range(4))
    with project.writing("pairs"):
        pairs = [
            project.db.execute(
                "INSERT INTO pairs (reference_id, target_id, external_key, created_at) "
                "VALUES (:reference_id, :target_id, :external_key, 'now') RETURNING id", {
                    "reference_id": f"im{n}",
                    "target_id": f"im{n + 1}",
                    "external_key": f"k{n}",
                }
            ).fetchone()[0]
            for n in range(3)
        ]
        pairs += [
            project.db.execute(
                "INSERT INTO pairs (reference_id, target_id, external_key, created_at) "
                "VALUES ('im0', 'im2', :external_key, 'now') RETURNING id", {"external_key": f"w{n}"}
            ).fetchone()[0]
            for n in range(6)
        ]
    add_attribute(project, "ann", "red", "shape")
    save_transactions(project, [Transaction("T", "k", ("im0", "im1", "im2"),
                                            sequential_turns(["is red", "is long"]))], "ann")
    create_sample(project, SampleOptions(raters=("ann", "bob"), share=1.0), "ann")
    item = next_item(project, "main", "ann")
    assert item is not None

    def caption(pair: int) -> None:
        save_draft(project, pair, "ann", f"is darker {pair}")
        submit_caption(project, pair, "ann", f"is darker {pair}")

    for n in range(6):  # statements prepared (psycopg: from their 6th use), as in a session
        caption(pairs[3 + n])
        review(project, "ann", "im0", ["red"], ("accepted", "rejected")[n % 2])
        save_scores(project, item.assignment_id, "ann", {"accuracy": 1 + n % 5})
    assert _round_trips(project, lambda: caption(pairs[2]), tmp_path) <= 3
    assert _round_trips(project, lambda: review(project, "ann", "im1", ["red"], "rejected"),
                        tmp_path) <= 2
    assert _round_trips(project, lambda: save_scores(
        project, item.assignment_id, "ann", {"accuracy": 4}), tmp_path) <= 2
    mine = own_caption(project, pairs[2], "ann")
    assert mine is not None and (mine.status, mine.text) == ("submitted", f"is darker {pairs[2]}")
    project.close()


def test_nested_blocks_that_fail_or_write_nothing_leave_the_rest(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A nested block undone before it ran a statement, one that wrote nothing, and one
    undone after writing: the outer transaction keeps exactly its own rows."""
    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:

        def add(name: str) -> None:
            project.db.execute(
                "INSERT INTO people (name, role, created_at) VALUES (:name, 'admin', 't')", {
                    "name": name,
                }
            )

        with project.writing("people"):
            with pytest.raises(ValueError), project.db.atomic():
                raise ValueError("before any statement")
            with project.db.atomic():
                pass
            add("a")
            with pytest.raises(ValueError), project.db.atomic():
                add("b")
                raise ValueError("after a statement")
            with project.db.atomic(), project.db.atomic():
                add("c")
        with pytest.raises(ValueError), project.writing("people"):
            raise ValueError("nothing sent")
        assert not project.db.conn.in_transaction
        assert [p.name for p in project.people()] == ["a", "c"]


def test_a_deferred_write_that_breaks_a_rule_undoes_its_block_and_says_which(
    postgresql_url: str, tmp_path: Path
) -> None:
    """A write sent with the next statement (``defer``) that breaks a rule is refused as
    any write is: inside a nested block the block is undone and the rest kept; in a
    change, the whole change and its audit row are undone, even when it waited for the
    COMMIT."""
    from studio.store.errors import RecordRejected

    insert = "INSERT INTO people (name, role, created_at) VALUES (:name, 'admin', 't')"
    with Project.create(postgresql_url, local_path=tmp_path / "project.pg") as project:
        project.ensure_person("ann")
        with project.writing("people"):
            with pytest.raises(RecordRejected, match="people"), project.db.atomic():
                project.db.defer(insert, {"name": "bob"})
                project.db.defer(insert, {"name": "ann"})  # a second "ann"
                project.db.execute("SELECT 1")
            project.db.execute(insert, {"name": "cy"})
        with pytest.raises(RecordRejected, match="people"), project.change(
            "ann", "add", "person"
        ) as record:
            project.db.defer(insert, {"name": "dee"})
            project.db.defer(insert, {"name": "cy"})  # raised by the COMMIT
            record["after"] = "two people"
        assert not project.db.conn.in_transaction
        assert [p.name for p in project.people()] == ["ann", "cy"]
        assert project.db.execute("SELECT count(*) FROM audit_log").fetchone()[0] == 0
