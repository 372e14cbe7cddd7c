"""Opening a project database: pragmas, schema version checks, backup, then migration."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.errors import ProjectBusyError, ProjectError, ProjectReadOnlyError, SchemaTooNewError
from studio.store import busy
from studio.store.deferred import Deferred
from studio.store.errors import RecordRejected, StatementFailed, StoreError
from studio.store.migrations import HEAD, LATEST_VERSION, LEGACY_VERSION, MIGRATIONS, REVISIONS
from studio.timeouts import busy_timeout_ms


def _sqlite_utils_without_pandas() -> Any:
    """``sqlite_utils`` imports pandas (and through it pyarrow) when it is installed, only
    to map pandas' types, which the studio never stores: 1-2.5 s of every process's start
    (each command line call, each server worker). Imported with pandas hidden; pandas
    itself is imported as usual later, by whatever needs it."""
    import sys

    if "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]  # "import pandas" fails here
    try:
        import sqlite_utils
    finally:
        if sys.modules.get("pandas") is None:
            del sys.modules["pandas"]
    return sqlite_utils


if TYPE_CHECKING:
    import sqlite_utils
else:
    sqlite_utils = _sqlite_utils_without_pandas()

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
    error: sqlite3.Error,
    path: Path,
    read_only_reason: str | None = None,
    conn: sqlite3.Connection | None = None,
) -> StoreError:
    """The store's error for a SQLite error (``studio.store.errors``): busy and read-only
    become one clear line, a broken rule names it (``conn`` resolves the index's name)."""
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    if code in _BUSY_CODES:
        return ProjectBusyError(busy_message(path))
    if code == _READONLY_CODE:
        return ProjectReadOnlyError(read_only_message(path, read_only_reason))
    if isinstance(error, sqlite3.IntegrityError):
        return _rejected(str(error), conn)
    return StatementFailed(f"the project database refused the change ({error}; {path})")


def _rejected(message: str, conn: sqlite3.Connection | None) -> RecordRejected:
    """``RecordRejected`` naming the rule as PostgreSQL does (an index by its name, an
    inline ``UNIQUE`` as ``<table>_<columns>_key``, a primary key as ``<table>_pkey``)."""
    kind, _, detail = message.partition(" constraint failed: ")
    if not detail:
        return RecordRejected(message, rule=message.split(" constraint")[0].lower())
    if detail.startswith("index '"):
        return RecordRejected(message, rule=detail[len("index '") : -1])
    qualified = [part.strip() for part in detail.split(",")]
    table = qualified[0].split(".", 1)[0] if "." in qualified[0] else ""
    columns = [part.split(".", 1)[-1] for part in qualified]
    if kind == "UNIQUE" and table:
        rule = _unique_rule(conn, table, columns)
    elif kind == "NOT NULL" and table:
        rule = f"{table}.{columns[0]} not null"
    else:
        rule = detail
    return RecordRejected(message, rule=rule, table=table, key=", ".join(columns))


def _unique_rule(conn: sqlite3.Connection | None, table: str, columns: list[str]) -> str:
    inline = f"{table}_{'_'.join(columns)}_key"
    if conn is None:
        return inline
    try:
        indexes = conn.execute(f'PRAGMA index_list("{table}")').fetchall()  # dialect: sqlite
        for _, name, unique, origin, *_ in indexes:
            info = conn.execute(f'PRAGMA index_info("{name}")').fetchall()  # dialect: sqlite
            if unique and [row[2] for row in info] == columns:
                return {"pk": f"{table}_pkey", "u": inline}.get(origin, name)
    except sqlite3.Error:
        return inline
    return f"{table}_pkey" if columns == ["id"] else inline


class StudioDatabase(sqlite_utils.Database):
    """sqlite-utils' database whose transactions take the write lock when they begin.

    ``atomic()`` opens ``BEGIN IMMEDIATE`` (nested blocks stay savepoints), so a second
    writer waits out the busy timeout at ``BEGIN`` instead of failing at its first write
    after a read (a deferred ``BEGIN`` cannot wait there: its snapshot would be stale).
    sqlite-utils' own helpers (``insert_all`` …) call ``atomic()`` too, so they follow.
    Every SQLite error becomes the store's (``translate_error``): busy and read-only
    ``ProjectBusyError`` / ``ProjectReadOnlyError``, a broken rule ``RecordRejected``.
    """

    path: Path = Path()
    read_only_reason: str | None = None
    busy_waits = 0  # transactions whose BEGIN waited for another writer (for the bench)

    def execute(self, sql: str, parameters: Any = None) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as error:
            raise self._mapped(error) from error

    def defer(self, sql: str, parameters: Any = None) -> Deferred:
        """A statement whose answer is read later, if at all (PostgreSQL sends it with the
        next one, ``PgDatabase.defer``); SQLite, in the same process, runs it at once."""
        return Deferred.of(self.execute(sql, parameters))

    def _mapped(self, error: sqlite3.Error) -> StoreError:
        return translate_error(error, self.path, self.read_only_reason, self.conn)

    @contextlib.contextmanager
    def atomic(self, whole: bool = False) -> Generator[sqlite_utils.Database, None, None]:
        """A write transaction (a savepoint when nested); a SQLite error that leaves the
        block (from ``execute``, ``conn.executemany`` or sqlite-utils' helpers) arrives
        as the store's error (``studio.store.errors``). ``whole`` (an operation on the
        whole project) changes nothing here: every SQLite writer has the project alone."""
        try:
            with self._atomic() as db:
                yield db
        except sqlite3.Error as error:
            raise self._mapped(error) from error

    @contextlib.contextmanager
    def _atomic(self) -> Generator[sqlite_utils.Database, None, None]:
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
        if isinstance(mapped, ProjectBusyError | ProjectReadOnlyError):
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


def newer_message(where: str, version: int, revision: str | None) -> str:
    said = f"schema {version}" + (f", revision {revision}" if revision else "")
    return (
        f"{where} was written by a newer CIR Studio ({said}; this version understands up "
        f"to {LATEST_VERSION}). Update CIR Studio to open it."
    )


def needs_upgrade(db: Any) -> tuple[int, str | None]:
    """(schema number, Alembic revision) of a file, refusing one newer than this studio."""
    from studio.store.schema_upgrade import sqlite_revision

    current = schema_version(db)
    revision = sqlite_revision(db.conn)
    known = revision is None or revision in REVISIONS
    if not known or current > LATEST_VERSION or (revision is None and current > LEGACY_VERSION):
        raise SchemaTooNewError(newer_message(str(getattr(db, "path", "")), current, revision))
    return current, revision


def outdated_message(where: str, version: int) -> str:
    return (
        f"{where} is at schema {version} and this CIR Studio needs {LATEST_VERSION}; "
        f"upgrade it first: cir-studio project upgrade {where} (or, for a team server's "
        f"project, cir-studio server migrate --project {where})."
    )


def refuse_outdated(db: Any, where: str) -> None:
    """Refuse (without touching it) a database that needs a migration or is too new."""
    current, revision = needs_upgrade(db)
    if revision != HEAD:
        raise ProjectError(outdated_message(where, current))


def migrate(db: sqlite_utils.Database, path: Path, target: int | None = None) -> Path | None:
    """Bring the file to the newest schema; back it up first when it already holds data.

    A file of schema 1-10 runs the numbered legacy scripts to 11, then (as a file at 11
    made before Alembic) the Alembic chain from its baseline; a new, empty file runs the
    whole chain. ``target`` (tests of the legacy path) stops at a legacy number.
    Returns the backup's path (None for a new, empty file or one already current). A file
    from a newer release is refused untouched: an old program must not guess at a schema
    it does not know.
    """
    current, revision = needs_upgrade(db)
    if revision == HEAD or (target is not None and current >= target):
        return None
    reason = getattr(db, "read_only_reason", None)
    if reason is not None:
        raise ProjectReadOnlyError(
            f"{path} needs upgrading to schema {LATEST_VERSION} (it is at {current}) but "
            f"{reason}; make it writable once so CIR Studio can upgrade it."
        )
    backup = backup_file(db, path, current) if current > 0 else None
    legacy_target = LEGACY_VERSION if target is None else min(target, LEGACY_VERSION)
    if current == 0 and target is None:
        legacy_target = 0  # a new, empty file: the Alembic chain builds all of it
    for version in range(current + 1, legacy_target + 1):
        script = MIGRATIONS[version - 1]
        try:
            # IMMEDIATE: wait for another writer instead of failing at the first write.
            db.conn.executescript(
                f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {version};\nCOMMIT;"
            )
        except (sqlite3.DatabaseError, StoreError) as error:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            if schema_version(db) >= version:
                continue  # another program opening the file migrated it while we waited
            raise _failed(error, path, version, backup) from error
    if target is not None and target <= LEGACY_VERSION:
        return backup  # tests making an old file
    from studio.store.schema_upgrade import upgrade_sqlite

    try:
        upgrade_sqlite(db.conn)
    except (sqlite3.DatabaseError, StoreError) as error:
        raise _failed(error, path, LATEST_VERSION, backup) from error
    return backup


def _failed(error: Exception, path: Path, version: int, backup: Path | None) -> Exception:
    """Busy and read-only as themselves; anything else says the file is unchanged."""
    mapped = translate_error(error, path) if isinstance(error, sqlite3.Error) else error
    if isinstance(mapped, ProjectBusyError | ProjectReadOnlyError):
        return mapped
    return ProjectError(
        f"Migrating {path} to schema {version} failed ({error}); "
        f"the file is unchanged{f' and a backup is at {backup}' if backup else ''}."
    )


def backup_file(db: sqlite_utils.Database, path: Path, version: int) -> Path:
    """Copy the database with SQLite's online backup (safe under WAL) before migrating."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.stem}.schema{version}.{stamp}.bak{path.suffix}")
    with sqlite3.connect(str(target)) as copy:
        db.conn.backup(copy)
    copy.close()
    return target
