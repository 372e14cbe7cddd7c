"""Schema versions: older files are backed up then migrated; newer ones are refused."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studio.errors import SchemaTooNewError
from studio.store import Project
from studio.store.database import connect, migrate
from studio.store.migrations import LATEST_VERSION


def make_version_1_project(path: Path) -> None:
    db = connect(path)
    migrate(db, path, target=1)
    db.execute("INSERT INTO meta VALUES ('name', 'Old project')")
    db.execute(
        "INSERT INTO images (id, path, added_at) VALUES ('a', 'a.jpg', '2024-01-01T00:00:00')"
    )
    db.close()


def test_new_projects_are_at_the_latest_schema(tmp_path: Path) -> None:
    with Project.create(tmp_path) as project:
        assert project.schema_version == LATEST_VERSION
        assert project.backup_path is None


def test_an_older_project_is_backed_up_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    make_version_1_project(path)
    with Project.open(path) as project:
        assert project.schema_version == LATEST_VERSION
        assert project.count_images() == 1
        assert project.name == "Old project"
        project.db.execute("SELECT count(*) FROM attribute_vocab").fetchone()  # new table exists
        backup = project.backup_path
    assert backup is not None and backup.exists()
    with sqlite3.connect(backup) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == 1
        assert old.execute("SELECT id FROM images").fetchall() == [("a",)]


@pytest.mark.sqlite_only
def test_a_newer_project_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    Project.create(tmp_path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError, match="newer CIR Studio"):
        Project.open(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("*.bak*")) == []


# -- the Alembic chain ---------------------------------------------------------------

DATA = Path(__file__).resolve().parents[1] / "data"
V11_FILE = DATA / "project_v11.cirdb"  # made by the studio before Alembic (make_v11_projects.py)
V11_DUMP = DATA / "project_v11.pg.sql"
ADDED = ["D3", "D1", "D2", "SHARED", "T2", "T1", "A9", "A8"]  # the order the file added them


def sqlite_shape(path: Path) -> dict[str, object]:
    """Everything SQLite says about a file's schema, by name: columns (type, not null,
    default, key), foreign keys with their ON DELETE, indexes (unique, partial, columns)
    and trigger bodies. A TEXT primary key counts as NOT NULL (SQLite lets an old
    ``id TEXT PRIMARY KEY`` hold NULL by a historical quirk; the metadata forbids it)."""
    conn = sqlite3.connect(path)
    shape: dict[str, object] = {}
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    )]
    for table in tables:
        columns = [
            (name, kind, bool(notnull or pk), default, pk)
            for _, name, kind, notnull, default, pk in conn.execute(f"PRAGMA table_info({table})")
        ]
        keys = sorted(
            (r[2], r[3], r[4], r[6]) for r in conn.execute(f"PRAGMA foreign_key_list({table})")
        )
        indexes = sorted(
            (
                "auto" if name.startswith("sqlite_autoindex") else name, unique, partial,
                tuple(r[2] for r in conn.execute(f"PRAGMA index_info({name})")),
            )
            for _, name, unique, _origin, partial in conn.execute(f"PRAGMA index_list({table})")
        )
        shape[table] = (columns, keys, indexes)
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"):
        shape[f"trigger {name}"] = " ".join(sql.replace(";", " ; ").split())
    conn.close()
    return shape


def metadata_drift(url: str) -> list[object]:
    """What Alembic's autogenerate would change to make the database match the metadata."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine

    from studio.store.schema import metadata

    def ours(obj: object, name: str | None, kind: str, reflected: bool, other: object) -> bool:
        return not (kind == "table" and name == "cir_schema")  # bookkeeping, as alembic_version

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"include_object": ours})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def live_counts(project: Project) -> tuple[int, int]:
    """(live captions the pairs' column holds in all, pairs whose column differs from
    their captions)."""
    kept = project.db.execute("SELECT coalesce(sum(live_captions), 0) FROM pairs").fetchone()
    wrong = project.db.execute(
        "SELECT count(*) FROM pairs p WHERE p.live_captions != (SELECT count(*) FROM captions "
        "c WHERE c.pair_id = p.id AND c.status IN ('submitted', 'accepted'))").fetchone()
    return int(kept[0]), int(wrong[0])


def test_the_chain_shipped_is_the_chain_the_studio_knows() -> None:
    from studio.store.migrations import REVISIONS
    from studio.store.schema_upgrade import chain

    assert chain() == list(REVISIONS)
    assert LATEST_VERSION == 15


@pytest.mark.sqlite_only
def test_a_file_made_before_alembic_is_backed_up_and_upgraded_keeping_its_order(
    tmp_path: Path,
) -> None:
    from studio.store.galleries import gallery
    from studio.store.records import ImageRecord
    from studio.store.repos.datasets import split_images

    path = tmp_path / "project.cirdb"
    shutil.copy(V11_FILE, path)
    with Project.open(path) as project:
        assert project.schema_version == LATEST_VERSION
        assert live_counts(project) == (6, 0)  # the upgrade counted the pairs' captions
        assert project.db.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("0005_live_captions",)
        ]
        assert [i for i, _ in split_images(project, None, "val")] == ADDED
        assert gallery(project, "dress", "val") == ["D3", "D1", "D2", "SHARED", "A9", "A8"]
        project.add_images([ImageRecord(id="0new", path="0new.jpg", split="val")])
        assert [i for i, _ in split_images(project, None, "val")] == [*ADDED, "0new"]
        assert project.name == "Made at schema 11"
        backup = project.backup_path
    assert backup is not None and backup.name.startswith("project.schema11.")
    with sqlite3.connect(backup) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == 11
    with Project.open(path) as again:  # current now: nothing to do, no second backup
        assert again.backup_path is None


@pytest.mark.sqlite_only
def test_every_way_to_the_newest_schema_gives_the_same_file(tmp_path: Path) -> None:
    """A new file (the whole chain), one made before Alembic (stamped, then upgraded) and
    one of schema 1 (legacy scripts, then the chain) end with the same schema, and that
    schema is the metadata's (Alembic's autogenerate finds nothing to change)."""
    Project.create(tmp_path / "new").close()
    shutil.copy(V11_FILE, tmp_path / "v11.cirdb")
    Project.open(tmp_path / "v11.cirdb").close()
    make_version_1_project(tmp_path / "v1.cirdb")
    Project.open(tmp_path / "v1.cirdb").close()
    fresh = sqlite_shape(tmp_path / "new" / "project.cirdb")
    assert sqlite_shape(tmp_path / "v11.cirdb") == fresh
    assert sqlite_shape(tmp_path / "v1.cirdb") == fresh
    assert metadata_drift(f"sqlite:///{tmp_path / 'new' / 'project.cirdb'}") == []


@pytest.mark.sqlite_only
def test_a_file_of_an_unknown_revision_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "project.cirdb"
    Project.create(tmp_path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError, match="newer CIR Studio.*0099_from_the_future"):
        Project.open(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("*.bak*")) == []


@pytest.mark.sqlite_only
def test_opening_a_current_project_imports_no_sqlalchemy_and_no_pandas(tmp_path: Path) -> None:
    """The window shows in about a second and a command starts at once: a plain open reads
    two values, migrates nothing, and sqlite_utils does not pull in pandas (1-2.5 s); pandas
    is still there for whatever imports it later."""
    Project.create(tmp_path).close()
    code = (
        "import sys; from studio.store import Project; "
        f"Project.open({str(tmp_path)!r}).close(); "
        "print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('sqlalchemy', 'alembic', 'pandas'))); "
        "import pandas"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    assert out.strip() == "[]"


def restore_v11_dump(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(V11_DUMP.read_text().encode())


def pg_shape(url: str) -> dict[str, object]:
    """Trigger and function bodies of a PostgreSQL project (what tables cannot say)."""
    import psycopg

    with psycopg.connect(url) as conn:
        triggers = conn.execute(
            "SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger "
            "WHERE NOT tgisinternal ORDER BY 1, 2"
        ).fetchall()
        functions = conn.execute(
            "SELECT p.proname, pg_get_function_identity_arguments(p.oid), p.prosrc "
            "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' ORDER BY 1, 2"
        ).fetchall()
    return {
        "triggers": triggers,
        "functions": [(name, args, " ".join(body.split())) for name, args, body in functions],
    }


def test_a_postgresql_project_made_before_alembic_is_upgraded_like_a_new_one(
    postgresql_url: str, postgresql_server, tmp_path: Path
) -> None:
    import psycopg

    from studio.store.records import ImageRecord
    from studio.store.repos.datasets import split_images
    from tests.pg_site.cir_pg_engine import new_database

    restore_v11_dump(postgresql_url)
    with Project.open(postgresql_url) as project:
        assert project.schema_version == LATEST_VERSION
        assert live_counts(project) == (6, 0)  # the upgrade counted the pairs' captions
        # The dump's own update (two images marked missing) had already moved their rows:
        # the upgrade numbers rows by when they were added, then by where they lie, and
        # from then on the order no longer moves.
        order = [i for i, _ in split_images(project, None, "val")]
        assert sorted(order[:6]) == sorted(ADDED[:6]) and order[6:] == ["A9", "A8"]
        with project.writing("images"):
            project.db.execute("UPDATE images SET missing = 1 - missing")
        project.add_images([ImageRecord(id="0new", path="0new.jpg", split="val")])
        assert [i for i, _ in split_images(project, None, "val")] == [*order, "0new"]
    with psycopg.connect(postgresql_url) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("0005_live_captions",)
        ]
    fresh = new_database(postgresql_server.get_uri())
    Project.create(fresh, local_path=tmp_path / "project.pg").close()  # the whole chain
    assert pg_shape(postgresql_url) == pg_shape(fresh)
    for url in (postgresql_url, fresh):
        assert metadata_drift(url.replace("postgresql://", "postgresql+psycopg://", 1)) == []


@pytest.mark.sqlite_only
def test_project_upgrade_says_from_and_to_then_that_nothing_is_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from studio.cli.main import main

    path = tmp_path / "project.cirdb"
    shutil.copy(V11_FILE, path)
    assert main(["project", "upgrade", str(path)]) == 0
    said = capsys.readouterr().out
    assert f"Upgraded {path} from schema 11 (before the migration chain) to schema 15 " \
        "(0005_live_captions); the old file is kept at" in said
    assert len(list(tmp_path.glob("project.schema11.*.bak.cirdb"))) == 1
    assert main(["project", "upgrade", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == (
        f"{path} is already at the newest schema 15 (0005_live_captions); nothing to do."
    )


def test_server_workers_never_migrate_and_server_migrate_does(
    postgresql_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under gunicorn no ``server start`` runs first: a request to a project that needs a
    migration is refused and the database left as it was; ``server migrate`` upgrades it."""
    from starlette.testclient import TestClient

    from studio.cli.main import main
    from studio.errors import ProjectError
    from studio.server.app import ServerConfig, create_app
    from studio.store.schema_upgrade import schema_state

    restore_v11_dump(postgresql_url)
    with TestClient(create_app(ServerConfig(postgresql_url)), raise_server_exceptions=False) as c:
        answer = c.get("/v1/whoami", headers={"Authorization": "Bearer nobody"})
    assert answer.status_code >= 500
    assert schema_state(postgresql_url) == (11, None)  # untouched
    with pytest.raises(ProjectError, match="server migrate --project"):
        Project.open(postgresql_url, upgrade=False)
    assert main(["server", "migrate", "--project", postgresql_url]) == 0
    assert "from schema 11 (before the migration chain) to schema 15" in capsys.readouterr().out
    assert schema_state(postgresql_url) == (15, "0005_live_captions")
    assert main(["server", "migrate", "--project", postgresql_url]) == 0
    assert "nothing to do" in capsys.readouterr().out
    Project.open(postgresql_url, upgrade=False).close()


def columns_of(conn: object, table: str, postgresql: bool) -> set[str]:
    if postgresql:
        rows = conn.execute(  # type: ignore[attr-defined]
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", [table]
        )
        return {row[0] for row in rows}
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}  # type: ignore[attr-defined]


def test_an_upgrade_that_fails_midway_leaves_the_project_as_it_was(
    tmp_path: Path, postgresql_url: str
) -> None:
    """The whole chain is one transaction on both engines: a failure in its last steps
    (here an index already named as the one 0002 makes last) undoes its first ones."""
    import psycopg

    from studio.errors import ProjectError
    from studio.store.schema_upgrade import schema_state

    path = tmp_path / "project.cirdb"
    shutil.copy(V11_FILE, path)
    restore_v11_dump(postgresql_url)
    clash = "CREATE INDEX gallery_members_seq ON gallery_members (position)"
    with sqlite3.connect(path) as conn:
        conn.execute(clash)
    conn.close()
    with psycopg.connect(postgresql_url, autocommit=True) as pg:
        pg.execute(clash)
    for location in (path, postgresql_url):
        with pytest.raises(ProjectError, match="schema 15 failed"):
            Project.open(location)
        assert schema_state(location) == (11, None)
    with sqlite3.connect(path) as conn:
        assert "seq" not in columns_of(conn, "images", postgresql=False)
    conn.close()
    with psycopg.connect(postgresql_url) as pg:
        assert "seq" not in columns_of(pg, "images", postgresql=True)
