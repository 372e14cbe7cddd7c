"""Creating and opening a project whose database is PostgreSQL.

The database itself is made by whoever runs the server (``createdb``); the studio fills
an empty one. Creation is one transaction (PostgreSQL's DDL is transactional): schema,
version and meta commit together, so a create killed midway leaves the database empty,
never half a project. A PostgreSQL project names its local folders in its meta: the image
root and the cache folder are files on the machine that uses them (``local_path`` anchors
relative ones, as the ``.cirdb`` file's folder does for SQLite).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.errors import ProjectBusyError, ProjectError, ProjectReadOnlyError
from studio.store import pg_database
from studio.store.database import utc_now
from studio.store.errors import StoreUnreachable

if TYPE_CHECKING:
    from studio.store.project import Project

ANCHOR_NAME = "project.pg"


def create_postgresql(
    cls: type[Project],
    url: str,
    name: str = "",
    image_root: Path | None = None,
    local_path: Path | None = None,
) -> Project:
    if local_path is None:
        folder = (
            Path(image_root).expanduser().resolve().parent
            if image_root is not None
            else Path.cwd() / pg_database.database_name(url)
        )
        local_path = folder / ANCHOR_NAME
    local_path = Path(local_path).expanduser().resolve()
    project = cls(local_path, url=url)
    try:
        db = project.pg_db
        refuse_non_empty(db)
        root = Path(image_root) if image_root is not None else local_path.parent / "images"
        from studio.store.schema_upgrade import attach_postgresql, upgrade_postgresql

        migrations = attach_postgresql(db.raw)
        db.raw.execute("BEGIN")
        try:
            db.raw.execute("SELECT pg_advisory_xact_lock(%s)", [pg_database.MIGRATION_LOCK_KEY])
            refuse_non_empty(db)
            upgrade_postgresql(migrations, create=True)  # the Alembic chain, in this transaction
            meta = {
                "name": name or local_path.parent.name,
                "image_root": project._portable_root(root),  # relative below the anchor
                "local_path": str(local_path),
                "cache_dir": local_path.stem + ".cache",  # beside the anchor, as for SQLite
                "created_at": utc_now(),
            }
            for key, value in meta.items():
                db.raw.execute(
                    "INSERT INTO meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [key, value],
                )
            db.raw.execute("COMMIT")
        except Exception as error:
            db.rollback()
            mapped = pg_database.translate_error(error, url, "create")
            if isinstance(mapped, ProjectError):
                raise mapped from error
            raise ProjectError(
                f"Creating the project in {pg_database.display(url)} failed ({error}); "
                "the database is left empty."
            ) from error
        finally:
            migrations.close()  # after COMMIT or ROLLBACK: it gives the connection back as is
    except BaseException:
        project.close()
        raise
    project.listen()
    return project


def refuse_non_empty(db: pg_database.PgDatabase) -> None:
    """A project is only ever made in an empty database (nothing of anyone's is touched)."""
    tables = db.table_names()
    if tables:
        what = "a CIR Studio project" if "cir_schema" in tables else f"{len(tables)} tables"
        raise ProjectError(
            f"{pg_database.display(db.url)} is not empty (it holds {what}); create the project "
            "in an empty database (createdb NAME), or open it instead."
        )


def open_postgresql(cls: type[Project], url: str, *, upgrade: bool = True) -> Project:
    project = cls(Path.cwd() / ANCHOR_NAME, url=url)
    try:
        db = project.pg_db
        if db.schema_version() == 0:
            raise ProjectError(
                f"{pg_database.display(url)} is not a CIR Studio project (it has no schema); "
                "create one there with 'cir-studio project copy' or Project.create."
            )
        if upgrade:
            migrate(db)
        else:
            refuse_outdated(db)
        stored = project.get_meta("local_path")
        if stored:
            project.path = Path(stored)
        else:
            project.path = Path.cwd() / pg_database.database_name(url) / ANCHOR_NAME
    except BaseException:
        project.close()
        raise
    project.listen()
    return project


def state(db: pg_database.PgDatabase) -> tuple[int, str | None]:
    """(schema number, Alembic revision), refusing a project newer than this studio."""
    from studio.errors import SchemaTooNewError
    from studio.store.database import newer_message
    from studio.store.migrations import LATEST_VERSION, LEGACY_VERSION, REVISIONS
    from studio.store.schema_upgrade import postgresql_revision

    current, revision = db.schema_version(), postgresql_revision(db.raw)
    if (revision is not None and revision not in REVISIONS) or current > LATEST_VERSION or (
        revision is None and current > LEGACY_VERSION
    ):
        raise SchemaTooNewError(newer_message(pg_database.display(db.url), current, revision))
    return current, revision


def refuse_outdated(db: pg_database.PgDatabase) -> None:
    from studio.store.database import outdated_message
    from studio.store.migrations import HEAD

    current, revision = state(db)
    if revision != HEAD:
        raise ProjectError(outdated_message(pg_database.display(db.url), current))


def migrate(db: pg_database.PgDatabase) -> bool:
    """Bring the project to the newest schema (Alembic, one transaction under the migration
    lock); False when it already was. A project newer than this studio is refused.

    PostgreSQL projects exist since schema 7: one made before Alembic (schema 7-10, never
    opened since) is first brought to 11 by the numbered PostgreSQL scripts of
    ``pg_schema`` (legacy, as SQLite files have theirs), then stamped at the baseline.
    """
    from studio.store.migrations import HEAD, LATEST_VERSION, LEGACY_VERSION

    current, revision = state(db)
    where = pg_database.display(db.url)
    if revision == HEAD:
        return False
    if db.read_only_reason is not None:
        raise ProjectReadOnlyError(
            f"{where} needs upgrading to schema {LATEST_VERSION} but {db.read_only_reason}."
        )
    if current < LEGACY_VERSION:
        pg_database.migrate(db, LEGACY_VERSION)  # the numbered scripts, to schema 11
    from studio.store.schema_upgrade import attach_postgresql, upgrade_postgresql

    migrations = None
    try:
        migrations = attach_postgresql(db.raw)
        db.raw.execute("BEGIN")
        db.raw.execute("SELECT pg_advisory_xact_lock(%s)", [pg_database.MIGRATION_LOCK_KEY])
        upgrade_postgresql(migrations)
        db.raw.execute("COMMIT")
    except Exception as error:
        db.rollback()
        mapped = pg_database.translate_error(error, db.url, "migration")
        if isinstance(mapped, ProjectBusyError | ProjectReadOnlyError | StoreUnreachable):
            raise mapped from error  # the database, not the upgrade: try again as it is
        raise ProjectError(
            f"Upgrading {where} to schema {LATEST_VERSION} failed ({error}); "
            "the database is unchanged."
        ) from error
    finally:
        if migrations is not None:
            migrations.close()  # after COMMIT or ROLLBACK: it gives the connection back as is
    return True


def holds_project(url: str) -> bool:
    """Whether the database at ``url`` holds a CIR Studio project (False: it is empty)."""
    db = pg_database.connect(url)
    try:
        return db.schema_version() > 0
    finally:
        db.close()
