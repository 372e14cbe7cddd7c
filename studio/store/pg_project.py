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

from studio.errors import ProjectError
from studio.store import pg_database
from studio.store.database import utc_now
from studio.store.migrations import LATEST_VERSION, MIGRATIONS
from studio.store.pg_schema import pg_script

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
        db.raw.execute("BEGIN")
        try:
            db.raw.execute("SELECT pg_advisory_xact_lock(%s)", [pg_database.MIGRATION_LOCK_KEY])
            refuse_non_empty(db)
            for version in range(1, LATEST_VERSION + 1):
                db.raw.execute(pg_script(version, MIGRATIONS[version - 1]).encode())
            db.raw.execute("CREATE TABLE cir_schema (version BIGINT NOT NULL)")
            db.raw.execute("INSERT INTO cir_schema (version) VALUES (%s)", [LATEST_VERSION])
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
        db.forget_schema()
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


def open_postgresql(cls: type[Project], url: str) -> Project:
    project = cls(Path.cwd() / ANCHOR_NAME, url=url)
    try:
        db = project.pg_db
        if db.schema_version() == 0:
            raise ProjectError(
                f"{pg_database.display(url)} is not a CIR Studio project (it has no schema); "
                "create one there with 'cir-studio project copy' or Project.create."
            )
        pg_database.migrate(db)
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


def holds_project(url: str) -> bool:
    """Whether the database at ``url`` holds a CIR Studio project (False: it is empty)."""
    db = pg_database.connect(url)
    try:
        return db.schema_version() > 0
    finally:
        db.close()
