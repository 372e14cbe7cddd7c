"""Opening a project database: pragmas, schema version checks, backup, then migration."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from studio.errors import ProjectBusyError, ProjectError, ProjectReadOnlyError, SchemaTooNewError
from studio.store import busy
from studio.store.migrations import LATEST_VERSION, MIGRATIONS
from studio.timeouts import busy_timeout_ms

BUSY_TIMEOUT_MS = busy_timeout_ms()  # 5 s (studio/timeouts.py)
BUSY_WAIT_S = 0.002  # a BEGIN slower than this waited for another writer's lock


def utc_now() -> str:
    """Timestamps are ISO 8601 in UTC, to the millisecond, so they sort as text."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


SQLITE_HEADER = b"SQLite format 3\x00"
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (their extended codes share the low byte)
_READONLY_CODE = 8  # SQLITE_READONLY


def busy_message(path: Path) -> str:
    return f"the project is busy: another program is writing to it; try again ({path})."


def read_only_message(path: Path, reason: str | None) -> str:
    return (
        f"{path} cannot be changed: {reason or 'the file or its folder is read-only'}. "
        "Reading works; make it writable (or copy the project elsewhere) to save changes."
    )


def translate_error(
    error: sqlite3.Error, path: Path, read_only_reason: str | None = None
) -> Exception:
    """The user-facing error for a SQLite error: busy and read-only become one clear line."""
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    if code in _BUSY_CODES:
        return ProjectBusyError(busy_message(path))
    if code == _READONLY_CODE:
        return ProjectReadOnlyError(read_only_message(path, read_only_reason))
    return error


class StudioDatabase(sqlite_utils.Database):
    """sqlite-utils' database whose transactions take the write lock when they begin.

    ``atomic()`` opens ``BEGIN IMMEDIATE`` (nested blocks stay savepoints), so a second
    writer waits out the busy timeout at ``BEGIN`` instead of failing at its first write
    after a read (a deferred ``BEGIN`` cannot wait there: its snapshot would be stale).
    sqlite-utils' own helpers (``insert_all`` …) call ``atomic()`` too, so they follow.
    Busy and read-only errors become ``ProjectBusyError`` / ``ProjectReadOnlyError``.
    """

    path: Path = Path()
    read_only_reason: str | None = None
    busy_waits = 0  # transactions whose BEGIN waited for another writer (for the bench)

    def execute(self, sql: str, parameters: Any = None) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.OperationalError as error:
            mapped = translate_error(error, self.path, self.read_only_reason)
            if mapped is error:
                raise
            raise mapped from error

    @contextlib.contextmanager
    def atomic(self) -> Generator[sqlite_utils.Database, None, None]:
        if self.conn.in_transaction:
            with super().atomic() as db:
                yield db
            return
        if self.read_only_reason is not None:
            raise ProjectReadOnlyError(read_only_message(self.path, self.read_only_reason))
        started = time.perf_counter()
        busy.begin_write(self._begin_immediate, str(self.path))
        if time.perf_counter() - started > BUSY_WAIT_S:
            self.busy_waits += 1
        try:
            yield self
        except BaseException:
            self.rollback()
            raise
        try:
            self.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise


    def _begin_immediate(self, timeout_ms: int | None) -> None:
        """One try at ``BEGIN IMMEDIATE``: the connection's busy timeout, or ``timeout_ms``."""
        if timeout_ms is None:
            self.execute("BEGIN IMMEDIATE")
            return
        usual = int(self.conn.execute("PRAGMA busy_timeout").fetchone()[0])
        self.conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
        try:
            self.execute("BEGIN IMMEDIATE")
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {usual}")


def check_header(path: Path) -> None:
    """Refuse an empty or foreign file before SQLite touches it (it would write a header)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        raise ProjectError(f"Cannot read {path}: {error.strerror or error}.") from error
    if not header:
        raise ProjectError(f"{path} is empty (0 bytes); it is not a CIR Studio project.")
    if header != SQLITE_HEADER:
        raise ProjectError(f"{path} is not a CIR Studio project (it is not an SQLite database).")


def read_only_reason(path: Path) -> str | None:
    """Why the project cannot be written (None if it can): the file, or its folder."""
    file_ok, folder_ok = os.access(path, os.W_OK), os.access(path.parent, os.W_OK)
    if not file_ok and not folder_ok:
        return "the file and its folder are read-only"
    if not file_ok:
        return "the file is read-only"
    if not folder_ok:
        return "its folder is read-only (SQLite needs to create files beside it)"
    return None


def connect(
    path: Path, read_only_reason: str | None = None, *, journal: str = "WAL"
) -> StudioDatabase:
    """Open one connection with the pragmas every connection needs.

    WAL lets the UI read while a job writes; foreign keys are per connection in SQLite;
    the busy timeout turns writer contention into a wait instead of an error.
    ``check_same_thread`` is off because a connection may be closed from another thread,
    but each thread opens its own (see ``Project.db``). A project that cannot be written
    is opened read-only (``mode=ro``; ``immutable=1`` when its folder is read-only and no
    write-ahead log is pending, since SQLite could not create its shared-memory file).
    """
    try:
        if read_only_reason is None:
            conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        else:
            conn = sqlite3.connect(
                _read_only_uri(path), uri=True, check_same_thread=False, isolation_level=None
            )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if read_only_reason is None:
            mode = conn.execute(f"PRAGMA journal_mode = {journal}").fetchone()[0]
            if str(mode).upper() != journal:
                raise ProjectError(f"{path}: SQLite could not use {journal} journaling here.")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as error:
        mapped = translate_error(error, path, read_only_reason)
        if mapped is not error:
            raise mapped from error
        raise ProjectError(f"{path} is not a CIR Studio project database ({error}).") from error
    db = StudioDatabase(conn)
    db.path = path
    db.read_only_reason = read_only_reason
    return db


def _read_only_uri(path: Path) -> str:
    uri = Path(path).resolve().as_uri()
    wal = path.with_name(path.name + "-wal")
    folder_writable = os.access(path.parent, os.W_OK)
    pending = wal.exists() and wal.stat().st_size > 0
    return uri + ("?mode=ro" if folder_writable or pending else "?immutable=1")


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (SQLite always sets it after a row insert)."""
    if cursor.lastrowid is None:
        raise RuntimeError("The statement inserted no row.")
    return int(cursor.lastrowid)


def schema_version(db: Any) -> int:
    """The schema version (PostgreSQL keeps it in a table; SQLite in ``user_version``)."""
    if getattr(db, "engine", "sqlite") == "postgresql":
        return int(db.schema_version())
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
    reason = getattr(db, "read_only_reason", None)
    if reason is not None:
        raise ProjectReadOnlyError(
            f"{path} needs upgrading to schema {target} (it is at {current}) but {reason}; "
            "make it writable once so CIR Studio can upgrade it."
        )
    backup = backup_file(db, path, current) if current > 0 else None
    for version in range(current + 1, target + 1):
        script = MIGRATIONS[version - 1]
        try:
            # IMMEDIATE: wait for another writer instead of failing at the first write.
            db.conn.executescript(
                f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {version};\nCOMMIT;"
            )
        except sqlite3.DatabaseError as error:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            if schema_version(db) >= version:
                continue  # another program opening the file migrated it while we waited
            mapped = translate_error(error, path)
            if mapped is not error:
                raise mapped from error
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
