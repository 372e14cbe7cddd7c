"""Opening a project database: pragmas, schema version checks, backup, then migration."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from studio.errors import ProjectError, SchemaTooNewError
from studio.store.migrations import LATEST_VERSION, MIGRATIONS

BUSY_TIMEOUT_MS = 5000


def utc_now() -> str:
    """Timestamps are ISO 8601 in UTC, to the millisecond, so they sort as text."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def connect(path: Path) -> sqlite_utils.Database:
    """Open one connection with the pragmas every connection needs.

    WAL lets the UI read while a job writes; foreign keys are per connection in SQLite;
    the busy timeout turns brief writer contention into a wait instead of an error.
    ``check_same_thread`` is off because a connection may be closed from another thread,
    but each thread opens its own (see ``Project.db``).
    """
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as error:
        raise ProjectError(f"{path} is not a CIR Studio project database ({error}).") from error
    return sqlite_utils.Database(conn)


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (SQLite always sets it after a row insert)."""
    if cursor.lastrowid is None:
        raise RuntimeError("The statement inserted no row.")
    return int(cursor.lastrowid)


def schema_version(db: sqlite_utils.Database) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite_utils.Database, path: Path, target: int = LATEST_VERSION) -> Path | None:
    """Bring the file to ``target``; back it up first when it already holds data.

    Returns the backup's path (None for a new, empty file). A file from a newer release is
    refused untouched: an old program must not guess at a schema it does not know.
    """
    current = schema_version(db)
    if current > LATEST_VERSION:
        raise SchemaTooNewError(
            f"{path} was written by a newer CIR Studio (schema {current}; this version "
            f"understands up to {LATEST_VERSION}). Update CIR Studio to open it."
        )
    if current >= target:
        return None
    backup = backup_file(db, path, current) if current > 0 else None
    for version in range(current + 1, target + 1):
        script = MIGRATIONS[version - 1]
        try:
            db.conn.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {version};\nCOMMIT;")
        except sqlite3.DatabaseError as error:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise ProjectError(
                f"Migrating {path} to schema {version} failed ({error}); "
                f"the file is unchanged{f' and a backup is at {backup}' if backup else ''}."
            ) from error
    return backup


def backup_file(db: sqlite_utils.Database, path: Path, version: int) -> Path:
    """Copy the database with SQLite's online backup (safe under WAL) before migrating."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.stem}.schema{version}.{stamp}.bak{path.suffix}")
    with sqlite3.connect(str(target)) as copy:
        db.conn.backup(copy)
    copy.close()
    return target

