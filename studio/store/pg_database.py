"""The PostgreSQL engine: one psycopg 3 connection with the surface repositories use.

``PgDatabase`` answers what ``StudioDatabase`` (SQLite) answers: ``execute(sql, params)``
returning a cursor whose rows index by position, ``query()`` giving dicts, ``atomic()``
(savepoints when nested), ``conn.in_transaction`` and ``table(name).insert_all``.

Statements arrive as the repositories write them, in SQL both engines accept, with named
parameters (``:pair_id``) and a dict of values; nothing rewrites them. psycopg wants
``%(pair_id)s`` and reads a literal ``%`` as its own, so each statement is compiled once
by SQLAlchemy (``text(sql).compile(dialect=psycopg)``, the library's bind rendering,
cached per statement) and the compiled text runs through psycopg with the same dict. A
statement that does not name its parameters (``?``, values in a list) is a mistake in the
code: ``NotPortable``. ``lastrowid`` is the id a statement's ``RETURNING id`` answered
(None for any other statement).

Locks: a write takes no lock on the whole project. Its ``BEGIN`` takes the project's
advisory lock in *shared* mode (in the same round trip), which writers never wait for
among themselves; only a whole-project operation (a team merge: ``atomic(whole=True)``)
takes it exclusively and so waits for the writers in flight, and they for it, as on
SQLite, with the same ``ProjectBusyError`` after ``lock_timeout``. The project's rules
hold by constraints (unique and partial unique indexes: one draft per person and pair, an
identity once) or by a row lock on the one thing a rule is about, taken by the
repository that checks it (``studio.store.locks``: the pair when a caption is submitted
or a lease taken). Read committed then gives every later statement the newest data.

A failed statement aborts PostgreSQL's whole transaction (SQLite undoes only the
statement): a repository that catches an error and goes on runs that statement in a
nested ``atomic()`` (a savepoint), as ``repos/team_merge._guarded`` does. (A savepoint
around every statement would keep SQLite's behaviour everywhere but double the round
trips of every write.)

Round trips: each one is a wait for the server (about 0.1 ms on an idle machine, several
times that on a loaded one), so a write sends what nobody reads with what comes next:
the BEGIN and the shared lock with the first statement, SAVEPOINT and RELEASE with the
next one, ``defer``'s statements (a rule's row lock and the reads that must follow it, a
write whose answer is read after the commit or not at all, a nested change's audit row)
with the next statement or the COMMIT (their answers are read once they arrived:
``studio.store.deferred``), and the outermost change's audit row and the notification with
the COMMIT. A nested block none of whose statements was sent before it ended sends no
SAVEPOINT at all: its statements go with what follows it, where a failure undoes the whole
transaction anyway. psycopg's errors become the store's (``studio.store.errors``):
a deadlock, a serialization failure or a lock timeout is ``ProjectBusyError`` (the write
was undone whole; the person or client tries again), a broken constraint
``RecordRejected`` naming it, a lost server ``StoreUnreachable``.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from studio.errors import ProjectBusyError, ProjectError, ProjectReadOnlyError, SchemaTooNewError
from studio.store import binds, busy
from studio.store.deferred import Deferred
from studio.store.errors import (
    NotPortable,
    RecordRejected,
    StatementFailed,
    StoreError,
    StoreUnreachable,
)
from studio.store.migrations import LATEST_VERSION
from studio.store.pg_schema import pg_script
from studio.timeouts import busy_timeout_ms

LOCK_TIMEOUT_MS = busy_timeout_ms()  # 5 s, as SQLite's busy timeout (studio/timeouts.py)
WRITE_LOCK_KEY = 0x43495253  # "CIRS": one project per database; shared by every writer
MIGRATION_LOCK_KEY = 0x4349524D
EVENT_CHANNEL = "cir_studio_events"
# Revoked team-server tokens (``repos.server.revoke_tokens``; heard by ``token_watch``).
TOKENS_CHANNEL = "cir_studio_tokens"


def display(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def without_password(url: str) -> str:
    """The URL with no password in it (what may be written to settings files)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", "@")
    return urlunsplit(parts._replace(netloc=netloc))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "postgres"


def busy_message(url: str) -> str:
    return f"the project is busy: another program is writing to it; try again ({display(url)})."


def translate_error(error: Exception, url: str, sql: str = "") -> StoreError:
    """The store's error for a psycopg error: busy, read-only, unreachable, a broken rule,
    or any other refusal (``studio.store.errors``)."""
    import psycopg
    from psycopg import errors

    if isinstance(error, StoreError):
        return error
    if isinstance(error, errors.LockNotAvailable | errors.DeadlockDetected):
        return ProjectBusyError(busy_message(url))
    if isinstance(error, errors.SerializationFailure | errors.QueryCanceled):
        return ProjectBusyError(busy_message(url))
    if isinstance(error, errors.ReadOnlySqlTransaction | errors.InsufficientPrivilege):
        return ProjectReadOnlyError(
            f"{display(url)} cannot be changed: the server allows this account to read "
            "only. Reading works; ask the server's administrator for write access."
        )
    if isinstance(error, psycopg.IntegrityError):
        diag = error.diag
        table = diag.table_name or ""
        rule = diag.constraint_name or (
            f"{table}.{diag.column_name} not null" if diag.column_name else "constraint"
        )
        detail = (diag.message_detail or "").strip()
        return RecordRejected(
            f"{diag.message_primary or error} ({rule})", rule=rule, table=table,
            key=detail.removeprefix("Key ").removesuffix("."),
        )
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        first = str(error).strip().splitlines()[0] if str(error).strip() else "no answer"
        return StoreUnreachable(f"Cannot reach the PostgreSQL project {display(url)}: {first}.")
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StatementFailed(
        f"the project database refused the change ({message}; in: {sql.strip()[:200]})"
    )


class PgCursor:
    """The rows of one statement, read like ``sqlite3.Cursor``'s."""

    def __init__(self, cursor: Any, returns_id: bool = False) -> None:
        self._cursor = cursor
        self._returns_id = returns_id
        self.rowcount = cursor.rowcount
        self._rows: list[Any] | None = None
        # Whether the statement answered rows (psycopg's ``description`` is not None),
        # read from the result itself: ``description`` builds a Column per field per call.
        result = cursor.pgresult
        self._has_rows = bool(
            result is not None and result.status == _TUPLES_OK and result.nfields
        )

    @property
    def lastrowid(self) -> int | None:
        """The last id the statement's ``RETURNING id`` answered (its rows stay readable);
        None for a statement without one."""
        if not self._returns_id or not self._has_rows:
            return None
        if self._rows is None:
            self._rows = list(self._cursor.fetchall())
        return int(self._rows[-1][0]) if self._rows else None

    @property
    def description(self) -> Any:
        return self._cursor.description

    def names(self) -> list[str]:
        """The answer's column names (``description``'s, without building it)."""
        result = self._cursor.pgresult
        if not self._has_rows or result is None:
            return []
        return [(result.fname(i) or b"").decode() for i in range(result.nfields)]

    def fetchone(self) -> Any:
        if self._rows is not None:
            return self._rows.pop(0) if self._rows else None
        return self._cursor.fetchone() if self._has_rows else None

    def fetchall(self) -> list[Any]:
        if self._rows is not None:
            rows, self._rows = self._rows, []
            return rows
        return list(self._cursor.fetchall()) if self._has_rows else []

    def fetchmany(self, size: int = 1) -> list[Any]:
        return [row for row in (self.fetchone() for _ in range(size)) if row is not None]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """What callers read of ``db.conn``: whether a transaction is open, and closing."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (its BEGIN may still wait to go with its first
        statement)."""
        if self._db.pending_begin:
            return True
        return bool(self._db.raw.pgconn.transaction_status != _IDLE)

    def execute(self, sql: str, parameters: Any = None) -> PgCursor:
        return self._db.execute(sql, parameters)

    def executemany(self, sql: str, rows: Iterable[Any]) -> PgCursor:
        return self._db.executemany(sql, rows)

    def commit(self) -> None:
        if self._db.pending_begin and self._db.nothing_to_send:
            self._db.rollback()  # nothing was sent
        elif self.in_transaction:
            self._db.send_with("COMMIT")

    def rollback(self) -> None:
        self._db.rollback()

    def close(self) -> None:
        self._db.close()


class PgTable:
    """The little of sqlite-utils' ``Table`` the store uses: ``insert_all`` and ``count``."""

    def __init__(self, db: PgDatabase, name: str) -> None:
        self.db, self.name = db, name

    @property
    def count(self) -> int:
        return int(self.db.execute(f"SELECT count(*) FROM {self.name}").fetchone()[0])

    def insert_all(
        self,
        records: Iterable[Mapping[str, Any]],
        pk: str | Sequence[str] = "id",
        batch_size: int = 500,
        replace: bool = False,
        ignore: bool = False,
        **_: Any,
    ) -> PgTable:
        rows = [dict(row) for row in records]
        if not rows:
            return self
        columns = list(dict.fromkeys(key for row in rows for key in row))
        keys = [pk] if isinstance(pk, str) else list(pk)
        sql = f"INSERT INTO {self.name} ({', '.join(columns)}) VALUES ({binds.marks(columns)})"
        if replace:
            updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in keys)
            sql += f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
        elif ignore:
            sql += " ON CONFLICT DO NOTHING"
        with self.db.atomic():
            for start in range(0, len(rows), batch_size):
                batch = rows[start : start + batch_size]
                self.db.executemany(sql, [binds.row(columns, row) for row in batch])
        return self


class PgDatabase:
    """One connection to a PostgreSQL project database (see the module docstring)."""

    engine = "postgresql"

    def __init__(self, raw: Any, url: str, read_only_reason: str | None = None) -> None:
        self.raw = raw
        self.url = url
        self.path = Path(display(url))  # what messages name (SQLite's is the file)
        self.read_only_reason = read_only_reason
        self.conn = PgConnection(self)
        self.busy_waits = 0  # writers that found the lock taken and waited (for the bench)
        self._savepoints = 0
        # Rows this transaction locked for a rule (``studio.store.locks``: not asked twice)
        # and the notifications it sends with its COMMIT (one round trip for both).
        self.row_locks: set[tuple[str, object]] = set()
        self._notifications: list[tuple[str, str]] = []
        # statements sent with the COMMIT (``execute_at_commit``)
        self._at_commit: list[Statement] = []
        # Statements that answer nothing, sent with the next one (``_with_pending``): the
        # BEGIN of a write and its shared lock, SAVEPOINT and RELEASE of nested blocks,
        # ``defer``'s statements.
        self._pending: list[Statement] = []
        # The answers of deferred statements, by the statement's id, until it is sent.
        self._answers: dict[int, tuple[Statement, Deferred]] = {}

    # -- statements ------------------------------------------------------------------

    def execute(self, sql: str, parameters: Any = None) -> PgCursor:
        statement, returns_id = compiled(sql)
        values = _named(parameters, sql)  # a dict, even empty: psycopg then reads %% as %
        try:
            if self._pending:
                cursor = self._with_pending((statement, values))
            else:
                cursor = self.raw.execute(statement, values)
        except Exception as error:
            raise self._mapped(error, sql) from error
        return PgCursor(cursor, returns_id)

    def executemany(self, sql: str, rows: Iterable[Any]) -> PgCursor:
        statement, _ = compiled(sql)
        rows = [_named(row, sql) for row in rows]
        with self.atomic():
            try:
                self._send_pending()
            except Exception as error:
                raise self._mapped(error, "BEGIN") from error
            cursor = self.raw.cursor()
            try:
                cursor.executemany(statement, rows)
            except Exception as error:
                raise self._mapped(error, sql) from error
        return PgCursor(cursor)

    def query(self, sql: str, params: Any = None) -> Generator[dict[str, Any], None, None]:
        cursor = self.execute(sql, params)
        names = cursor.names()
        for row in cursor.fetchall():
            yield dict(zip(names, row, strict=True))

    def table(self, name: str) -> PgTable:
        return PgTable(self, name)

    def table_names(self) -> list[str]:
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        ).fetchall()
        return [row[0] for row in rows]

    # -- transactions ----------------------------------------------------------------

    @contextlib.contextmanager
    def atomic(self, whole: bool = False) -> Generator[PgDatabase, None, None]:
        """A write transaction (a savepoint when nested). ``whole``: an operation on the
        whole project (a team merge), which takes the project's lock exclusively. A
        psycopg error that leaves the block arrives as the store's error."""
        try:
            with self._atomic(whole) as db:
                yield db
        except Exception as error:
            if type(error).__module__.split(".")[0] != "psycopg":
                raise
            raise self._mapped(error, "") from error

    @contextlib.contextmanager
    def _atomic(self, whole: bool) -> Generator[PgDatabase, None, None]:
        if self.conn.in_transaction:
            self._savepoints += 1
            name = f"cir_nested_{self._savepoints}"
            opened: Statement = (f"SAVEPOINT {name}", None)
            self._pending.append(opened)  # sent with the block's first statement
            try:
                yield self
            except BaseException:
                if opened in self._pending:  # nothing of the block reached the server
                    del self._pending[len(self._pending) - self._pending[::-1].index(opened) - 1 :]
                else:
                    self._pending.clear()  # all of it after the savepoint
                    self._quietly(f"ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}")
                self.row_locks.clear()  # the savepoint's row locks went with it
                raise
            finally:
                self._savepoints -= 1
            unsent = next(
                (at for at in range(len(self._pending) - 1, -1, -1) if self._pending[at] is opened),
                None,
            )
            if unsent is not None:
                # Nothing of the block reached the server (an empty block, or one whose
                # statements were all deferred): they go with what comes after it, where a
                # failure is raised outside the block and undoes the whole transaction, so
                # a savepoint would guard nothing: none is sent (two statements fewer).
                del self._pending[unsent]
            else:
                self._pending.append((f"RELEASE SAVEPOINT {name}", None))
            return
        if self.read_only_reason is not None:
            raise ProjectReadOnlyError(
                f"{display(self.url)} cannot be changed: {self.read_only_reason}."
            )
        if whole or busy.waiting():
            self.begin_write(whole)  # now: a wait for the lock is retried from here
        else:
            self._begin_lazily()
        try:
            yield self
        except BaseException:
            self.rollback()
            raise
        try:
            self._commit()
        except Exception as error:
            self.rollback()
            raise self._mapped(error, "COMMIT") from error
        finally:
            self.row_locks.clear()
            self._notifications.clear()
            self._at_commit.clear()
            self._answers.clear()
            self._pending.clear()

    def _begin_lazily(self) -> None:
        """BEGIN and the project's shared lock, sent in the round trip of the transaction's
        first statement. The lock waits, as ``begin_write``'s first try does, up to the
        connection's ``lock_timeout``."""
        self.row_locks.clear()
        self._notifications.clear()
        self._at_commit.clear()
        self._answers.clear()
        self._pending = [_BEGIN, _SHARED]

    def _with_pending(self, last: Statement | None = None) -> Any:
        """Send the statements waiting to go (BEGIN, savepoints, deferred ones) and
        ``last`` in one round trip: psycopg's pipeline mode, so each is an extended query
        that psycopg prepares once it repeats, as a statement sent alone (a text of several
        statements would be parsed and planned anew every time). A failure stops the ones
        after it and is raised here. The cursor answers ``last``."""
        sent = [*self._pending, last] if last is not None else self._pending
        self._pending = []
        lock = cursor = None
        answers = self._answers
        waiting: list[tuple[Deferred, Any]] = []
        with self.raw.pipeline():
            for statement in sent:
                cursor = self.raw.execute(*statement)
                if statement is _SHARED:
                    lock = cursor
                elif answers and id(statement) in answers:
                    waiting.append((answers.pop(id(statement))[1], cursor))
        for answer, answered in waiting:
            answer.arrived(PgCursor(answered))
        if lock is not None:
            row = lock.fetchone()
            if not (row and row[0]):
                self.busy_waits += 1  # a whole-project operation held it: waited
        return cursor

    def _send_pending(self) -> None:
        if self._pending:
            self._with_pending()

    def defer(self, sql: str, parameters: Any = None) -> Deferred:
        """Run ``sql`` in this write transaction, in the round trip of its next statement
        (or of its COMMIT): a row lock, the reads that must follow it, a write whose answer
        is read after the commit or not at all. It runs before that statement, in order, so
        everything after it sees what it did; a failure of it is raised by that statement
        (the transaction is undone either way; inside a nested block that fails, it is
        undone with the block). The answer's rows are read once it was sent (reading them
        earlier sends it: ``studio.store.deferred``). Outside a transaction it runs at once."""
        if not self.conn.in_transaction:
            return Deferred.of(self.execute(sql, parameters))
        statement = (compiled(sql)[0], _named(parameters, sql))
        self._pending.append(statement)
        answer = Deferred(self._send_pending)
        self._answers[id(statement)] = (statement, answer)
        return answer

    @property
    def nothing_to_send(self) -> bool:
        """Only the BEGIN of a write and its lock wait to go (no statement, no COMMIT's
        company): the transaction did nothing yet."""
        return (
            all(statement in (_BEGIN, _SHARED) for statement in self._pending)
            and not self._notifications
            and not self._at_commit
        )

    def send_with(self, statement: str) -> None:
        """``statement`` (answering nothing anybody reads) and whatever waits to go before
        it, in one round trip."""
        self._with_pending((statement, None))

    def _commit(self) -> None:
        if self.pending_begin and self.nothing_to_send:
            self._pending.clear()  # nothing was sent: nothing to commit
            return
        self._pending += self._at_commit
        self._pending += [
            (_NOTIFY, {"channel": channel, "payload": payload})
            for channel, payload in self._notifications
        ]
        self.send_with("COMMIT")

    @property
    def pending_begin(self) -> bool:
        """A write transaction was opened whose BEGIN has not reached the server yet."""
        return self._pending[:1] == [_BEGIN]

    def notify_at_commit(self, channel: str, payload: str) -> None:
        """``pg_notify(channel, payload)`` sent in the round trip of this transaction's
        COMMIT (delivered at commit either way; dropped with a rollback)."""
        self._notifications.append((channel, payload))

    def execute_at_commit(self, sql: str, parameters: Mapping[str, Any]) -> None:
        """Run ``sql`` in the round trip of this transaction's COMMIT, before it: a write
        whose answer nobody reads and after which nothing in the transaction reads what it
        wrote (the audit row of a change, the transaction's last statement); a failure
        undoes the transaction."""
        self._at_commit.append((compiled(sql)[0], _named(parameters, sql)))

    def begin_write(self, whole: bool = False) -> None:
        """BEGIN and the project's lock: shared for a write (writers never wait for each
        other), exclusive for a whole-project operation; while a whole-project operation
        holds it, a write waits for it (on the command line for as long as it takes,
        ``studio.store.busy``)."""
        busy.begin_write(lambda timeout: self._begin_write_once(timeout, whole), display(self.url))

    def _begin_write_once(self, timeout_ms: int | None, whole: bool = False) -> None:
        mode = "" if whole else "_shared"
        self.row_locks.clear()
        self._notifications.clear()
        self._at_commit.clear()
        self._answers.clear()
        try:  # one round trip: BEGIN and the first try at the lock
            got = self.raw.execute(
                f"BEGIN; SELECT pg_try_advisory_xact_lock{mode}({WRITE_LOCK_KEY})"
            )
            while got.description is None and got.nextset():
                pass
            row = got.fetchone()
            if not (row and row[0]):
                self.busy_waits += 1
                if timeout_ms is not None:
                    self.raw.execute(f"SET LOCAL lock_timeout = {int(timeout_ms)}")
                self.raw.execute(f"SELECT pg_advisory_xact_lock{mode}(%s)", [WRITE_LOCK_KEY])
        except Exception as error:
            self.rollback()
            raise self._mapped(error, "BEGIN") from error

    def rollback(self) -> None:
        self.row_locks.clear()
        self._notifications.clear()
        self._at_commit.clear()
        self._answers.clear()
        self._pending.clear()
        if self.conn.in_transaction:
            self._quietly("ROLLBACK")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.raw.close()

    # -- schema ----------------------------------------------------------------------

    def schema_version(self) -> int:
        row = self.raw.execute("SELECT to_regclass('cir_schema') IS NOT NULL").fetchone()
        if not row[0]:
            return 0
        row = self.raw.execute("SELECT version FROM cir_schema").fetchone()
        return int(row[0]) if row else 0

    # -- helpers ---------------------------------------------------------------------

    def identity_tables(self) -> set[str]:
        """Tables whose ``id`` the database assigns (an identity column)."""
        rows = self.raw.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'id' "
            "AND is_identity = 'YES' AND table_schema = current_schema()"
        ).fetchall()
        return {row[0] for row in rows}

    def _quietly(self, sql: str) -> None:
        with contextlib.suppress(Exception):
            self.raw.execute(sql)

    def _mapped(self, error: Exception, sql: str) -> StoreError:
        return translate_error(error, self.url, sql)


# A statement as psycopg runs it: its text and its values (None: a text without any).
Statement = tuple[str, "dict[str, Any] | None"]
_BEGIN: Statement = ("BEGIN", None)
# The project's lock in shared mode for a write: taken at once if free (True), else waited
# for up to ``lock_timeout`` (False: a whole-project operation held it; counted as a wait).
_SHARED: Statement = (
    f"SELECT CASE WHEN pg_try_advisory_xact_lock_shared({WRITE_LOCK_KEY}) THEN true "
    f"ELSE (SELECT false FROM pg_advisory_xact_lock_shared({WRITE_LOCK_KEY})) END",
    None,
)
_NOTIFY = "SELECT pg_notify(%(channel)s, %(payload)s)"


_IDLE = 0  # psycopg.pq.TransactionStatus.IDLE
_TUPLES_OK = 2  # psycopg.pq.ExecStatus.TUPLES_OK


# String literals, quoted identifiers and comments: where a ``?`` is text, not a parameter.
_NOT_CODE = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)
_RETURNING_ID = re.compile(r"\bRETURNING\s+id\s*;?\s*$", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def compiled(sql: str) -> tuple[str, bool]:
    """``sql`` as psycopg runs it (SQLAlchemy's ``text()`` compiled for its psycopg dialect:
    ``:name`` becomes ``%(name)s``, a literal ``%`` doubled) and whether it ends in
    ``RETURNING id``. Cached per statement text; raises ``NotPortable`` for a ``?``
    placeholder."""
    if "?" in _NOT_CODE.sub(" ", sql):
        raise NotPortable(
            "a statement with a '?' placeholder: the store's statements name their "
            f"parameters (':name' with a dict of values) so both engines run them as "
            f"written; in: {sql.strip()[:200]}"
        )
    from sqlalchemy import text

    statement = str(text(sql).compile(dialect=_psycopg_dialect()))
    return statement, bool(_RETURNING_ID.search(sql))


@functools.cache
def _psycopg_dialect() -> Any:
    from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg

    return PGDialect_psycopg()


def _named(parameters: Any, sql: str) -> dict[str, Any]:
    """The statement's values as a dict (none: an empty one)."""
    if isinstance(parameters, dict):
        return parameters
    if isinstance(parameters, Mapping):
        return dict(parameters)
    if not parameters:
        return {}
    raise NotPortable(
        "values given by position: the store's statements name their parameters "
        f"(':name' with a dict of values); in: {sql.strip()[:200]}"
    )


def connect(url: str, read_only_reason: str | None = None) -> PgDatabase:
    """Open one connection with the settings every connection needs."""
    try:
        import psycopg
    except ImportError as error:  # pragma: no cover - psycopg is a dependency
        raise ProjectError(
            "A PostgreSQL project needs psycopg 3 (pip install 'psycopg[binary]')."
        ) from error
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=10)
        _adapt(raw)
        raw.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        raw.execute("SET TIME ZONE 'UTC'")
        if read_only_reason is None:
            standby = raw.execute("SELECT pg_is_in_recovery()").fetchone()
            if standby and standby[0]:
                read_only_reason = "the server is a read-only standby"
    except psycopg.Error as error:
        raise translate_error(error, url) from error
    return PgDatabase(raw, url, read_only_reason)


def _adapt(raw: Any) -> None:
    """Numbers go to the server untyped (it infers, as SQLite's affinity does); numeric
    results come back as int or float, never ``Decimal``."""
    from psycopg.adapt import Dumper, Loader

    class UntypedNumber(Dumper):
        oid = 0

        def dump(self, obj: Any) -> bytes:
            return str(int(obj) if isinstance(obj, bool) else obj).encode()

    class PlainNumeric(Loader):
        def load(self, data: Any) -> Any:
            value = Decimal(bytes(data).decode())
            return int(value) if value == value.to_integral_value() else float(value)

    for kind in (int, float, bool):
        raw.adapters.register_dumper(kind, UntypedNumber)
    raw.adapters.register_loader("numeric", PlainNumeric)


def migrate(db: PgDatabase, target: int = LATEST_VERSION) -> None:
    """Bring the database to ``target`` under a migration lock, one version per commit."""
    current = db.schema_version()
    if current > LATEST_VERSION:
        raise SchemaTooNewError(
            f"{display(db.url)} was written by a newer CIR Studio (schema {current}; this "
            f"version understands up to {LATEST_VERSION}). Update CIR Studio to open it."
        )
    if current >= target:
        return
    if db.read_only_reason is not None:
        raise ProjectReadOnlyError(
            f"{display(db.url)} needs upgrading to schema {target} but {db.read_only_reason}."
        )
    for version in range(current + 1, target + 1):
        script = pg_script(version)
        try:
            db.raw.execute("BEGIN")
            db.raw.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])
            db.raw.execute("CREATE TABLE IF NOT EXISTS cir_schema (version BIGINT NOT NULL)")
            if db.schema_version() >= version:
                db.raw.execute("COMMIT")
                continue  # another program migrated it while we waited
            db.raw.execute(script.encode())
            db.raw.execute("DELETE FROM cir_schema")
            db.raw.execute("INSERT INTO cir_schema (version) VALUES (%s)", [version])
            db.raw.execute("COMMIT")
        except Exception as error:
            db.rollback()
            mapped = translate_error(error, db.url, f"migration {version}")
            if isinstance(mapped, ProjectBusyError | ProjectReadOnlyError | StoreUnreachable):
                raise mapped from error
            raise ProjectError(
                f"Migrating {display(db.url)} to schema {version} failed ({error}); "
                "the database is unchanged."
            ) from error
