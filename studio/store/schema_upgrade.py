"""Running the Alembic chain on a project database (SQLite file or PostgreSQL).

Programmatic only: the scripts ship inside the package (``studio/store/alembic``) and run
on a connection this module opens, with no alembic.ini on the user's machine. The whole
upgrade is one transaction that also records the schema number (``user_version`` /
``cir_schema``), so a failed or killed upgrade leaves the database as it was. SQLAlchemy
and Alembic are imported here, when a migration is needed, never on a plain open.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.store.migrations import HEAD, LEGACY_VERSION, REVISIONS, number_of

SCRIPTS = Path(__file__).with_name("alembic")
VERSION_TABLE = "alembic_version"


def config(connection: Any, after: Callable[[Any], None] | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.attributes["connection"] = connection
    cfg.attributes["after"] = after
    return cfg


def chain() -> list[str]:
    """The revisions of the shipped scripts, oldest first (a test compares ``REVISIONS``)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory(str(SCRIPTS))
    return [script.revision for script in reversed(list(scripts.walk_revisions()))]


def sqlite_revision(conn: sqlite3.Connection) -> str | None:
    """The file's Alembic revision, read with plain SQL (None: it has none)."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :version_table", {
            "version_table": VERSION_TABLE,
        }
    ).fetchone()
    if found is None:
        return None
    row = conn.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()  # noqa: S608
    return str(row[0]) if row else None


def upgrade_sqlite(conn: sqlite3.Connection) -> None:
    """Bring a file at schema 0 (empty) or 11 (with or without a revision) to the head, in
    one ``BEGIN IMMEDIATE`` transaction (a second program opening it waits, then finds it
    done). The caller has checked the file is not newer than this studio."""
    connection = _sqlalchemy_on(conn, "sqlite")
    conn.execute("BEGIN IMMEDIATE")
    try:
        revision = sqlite_revision(conn)
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if revision != HEAD:

            def record(connection: Any) -> None:
                connection.exec_driver_sql(f"PRAGMA user_version = {number_of(HEAD)}")

            _upgrade(connection, revision is None and version == LEGACY_VERSION, record)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        connection.close()  # after COMMIT or ROLLBACK: gives the connection back as is


def _sqlalchemy_on(raw: Any, dialect: str) -> Any:
    """A SQLAlchemy connection on the studio's own DB-API connection (so a migration runs
    in the transaction the studio begins, with its pragmas, locks and settings).

    Made while no transaction is open (SQLAlchemy's first checkout ends with a rollback),
    and closed by the caller once its transaction has ended (closing rolls back what
    SQLAlchemy thinks is open: nothing by then; a connection left to the garbage collector
    would be closed under the studio). It never resets the connection on return: the
    studio's code begins and ends its transactions.
    """
    from sqlalchemy import create_engine
    from sqlalchemy.pool import StaticPool

    url = "sqlite://" if dialect == "sqlite" else "postgresql+psycopg://"
    engine = create_engine(url, creator=lambda: raw, poolclass=StaticPool, pool_reset_on_return=None)
    return engine.connect()


def attach_postgresql(raw: Any) -> Any:
    """A SQLAlchemy connection on ``raw`` (psycopg) for ``upgrade_postgresql``: call it
    before beginning the transaction the upgrade is to run in, and keep it until then."""
    return _sqlalchemy_on(raw, "postgresql")


def _upgrade(connection: Any, stamp: bool, record: Callable[[Any], None]) -> None:
    """Run the chain to the head inside the connection's transaction (Alembic sees it is
    already in one and leaves the commit to us); ``stamp``: the database is schema 11
    made before Alembic, so the chain starts after the baseline."""
    from alembic import command

    if not connection.in_transaction():
        connection.begin()  # SQLAlchemy's bookkeeping only: the studio began the real one
    if stamp:
        connection.exec_driver_sql(
            f"CREATE TABLE {VERSION_TABLE} (version_num VARCHAR(32) NOT NULL, "
            f"CONSTRAINT {VERSION_TABLE}_pkc PRIMARY KEY (version_num))"
        )
        connection.exec_driver_sql(
            f"INSERT INTO {VERSION_TABLE} (version_num) VALUES ('{REVISIONS[0]}')"
        )
    from sqlalchemy.exc import DBAPIError

    try:
        command.upgrade(config(connection, record), "head")
    except DBAPIError as error:  # the engine's own error, as the rest of the store gets it
        if isinstance(error.orig, Exception):
            raise error.orig from error
        raise
    # No commit here: the studio commits (or rolls back) its own transaction on the DB-API
    # connection; SQLAlchemy's transaction stays open as bookkeeping only.


def postgresql_revision(raw: Any) -> str | None:
    """The database's Alembic revision (None: it has none), with plain SQL."""
    row = raw.execute(f"SELECT to_regclass('{VERSION_TABLE}') IS NOT NULL").fetchone()
    if not row[0]:
        return None
    row = raw.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
    return str(row[0]) if row else None


def upgrade_postgresql(connection: Any, *, create: bool = False) -> None:
    """Bring a PostgreSQL project (schema 11 made before Alembic, or a revision of the
    chain) to the head, or (``create``) build one in an empty database, inside the
    caller's transaction on its psycopg connection (``connection`` is what
    ``attach_postgresql`` gave before the caller began that transaction and took the
    migration lock; the caller commits it, together with whatever else it writes: a
    create's meta rows, a copy's rows). ``cir_schema`` gets the head's number in it too."""
    raw = connection.connection.dbapi_connection
    revision = postgresql_revision(raw)
    if revision == HEAD:
        return
    has_schema = bool(raw.execute("SELECT to_regclass('cir_schema') IS NOT NULL").fetchone()[0])
    if create and has_schema:
        raise RuntimeError("the database already holds a project")

    def record(connection: Any) -> None:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS cir_schema (version BIGINT NOT NULL)")
        connection.exec_driver_sql("DELETE FROM cir_schema")
        connection.exec_driver_sql(
            "INSERT INTO cir_schema (version) VALUES (%(n)s)", {"n": number_of(HEAD)}
        )

    _upgrade(connection, revision is None and has_schema, record)


@dataclass(frozen=True)
class UpgradeReport:
    """What ``upgrade_project`` did: the schema before and after, and the backup."""

    location: str
    before: tuple[int, str | None]  # (schema number, Alembic revision or None)
    after: tuple[int, str | None]
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def message(self) -> str:
        def said(state: tuple[int, str | None]) -> str:
            number, revision = state
            return f"schema {number} ({revision or 'before the migration chain'})"

        if not self.changed:
            return f"{self.location} is already at the newest {said(self.after)}; nothing to do."
        kept = f"; the old file is kept at {self.backup}" if self.backup else ""
        return f"Upgraded {self.location} from {said(self.before)} to {said(self.after)}{kept}."


def schema_state(location: str | Path) -> tuple[int, str | None]:
    """(schema number, Alembic revision) of a project, read without changing anything."""
    from studio.store.engines import is_url

    if is_url(location):
        from studio.store import pg_database

        db = pg_database.connect(str(location))
        try:
            return db.schema_version(), postgresql_revision(db.raw)
        finally:
            db.close()
    from studio.store.database import check_header
    from studio.store.project import resolve_project_path

    path = resolve_project_path(location)
    check_header(path)
    conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0]), sqlite_revision(conn)
    finally:
        conn.close()


def upgrade_project(location: str | Path) -> UpgradeReport:
    """Bring a project to the newest schema now (``cir-studio project upgrade``, ``server
    migrate``): the same backup and migration as opening it, said explicitly."""
    from studio.store.engines import is_url
    from studio.store.pg_database import display
    from studio.store.project import Project, resolve_project_path

    shown = display(str(location)) if is_url(location) else str(resolve_project_path(location))
    if not is_url(location) and not resolve_project_path(location).is_file():
        from studio.errors import ProjectError

        raise ProjectError(f"No project at {shown}: the file does not exist.")
    before = schema_state(location)
    with Project.open(location) as project:
        backup = project.backup_path
    return UpgradeReport(shown, before, schema_state(location), backup)
