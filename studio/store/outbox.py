"""The client's outbox: edits made for a team server, kept on disk until it answers.

One small SQLite file in the user's data folder. An edit is written here (and synced)
before anything is sent, keyed by the ``edit_uid`` the server applies once; it leaves the
waiting list only when the server's answer is stored beside it. So a dropped network, a
stopped server or a killed studio loses nothing: the next ``flush`` sends what waits, in
the order it was made, and a resend of an edit whose answer was lost is harmless.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from studio.store.database import utc_now
from studio.store.errors import ProjectBusyError, StatementFailed
from studio.timeouts import cache_lock_timeout_s

Function = TypeVar("Function", bound=Callable[..., Any])


def _store_errors(function: Function) -> Function:
    """SQLite's errors leave as the store's (``studio.store.errors``)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except sqlite3.Error as error:
            if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF in (5, 6):
                raise ProjectBusyError("The outbox is busy; try again.") from error
            raise StatementFailed(f"The outbox refused the change ({error}).") from error

    return wrapper  # type: ignore[return-value]

Outbox = sqlite3.Connection

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    server TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    status INTEGER,
    answer TEXT,
    answered_at TEXT
);
CREATE INDEX IF NOT EXISTS outbox_waiting ON outbox (server, status, seq);
"""


@_store_errors
def open_outbox(path: Path) -> sqlite3.Connection:
    """Open (creating) the outbox; every write is synced before it returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Usable from any thread (the desktop sends from its IO lane); the client serialises
    # its own use with a lock, and SQLite's default serialized mode guards the rest.
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=cache_lock_timeout_s(),
                           check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")  # dialect: sqlite
    conn.execute("PRAGMA synchronous = FULL")  # dialect: sqlite
    conn.executescript(_SCHEMA)
    return conn


@_store_errors
def add(conn: sqlite3.Connection, server: str, uid: str, method: str, path: str,
        body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO outbox (uid, server, method, path, body, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING",
        [uid, server, method, path, json.dumps(body), utc_now()],
    )


@_store_errors
def waiting(conn: sqlite3.Connection, server: str) -> list[dict[str, Any]]:
    """Edits the server has not answered yet, oldest first."""
    rows = conn.execute(
        "SELECT uid, method, path, body FROM outbox WHERE server = ? AND status IS NULL "
        "ORDER BY seq",
        [server],
    ).fetchall()
    return [{"uid": r[0], "method": r[1], "path": r[2], "body": json.loads(r[3])} for r in rows]


@_store_errors
def waiting_count(conn: sqlite3.Connection, server: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM outbox WHERE server = ? AND status IS NULL", [server]
    ).fetchone()
    return int(row[0])


@_store_errors
def answered(conn: sqlite3.Connection, uid: str, status: int, answer: Any) -> None:
    conn.execute(
        "UPDATE outbox SET status = ?, answer = ?, answered_at = ? WHERE uid = ?",
        [status, json.dumps(answer), utc_now(), uid],
    )


@_store_errors
def answer_of(conn: sqlite3.Connection, uid: str) -> tuple[int, Any] | None:
    row = conn.execute("SELECT status, answer FROM outbox WHERE uid = ?", [uid]).fetchone()
    if row is None or row[0] is None:
        return None
    return int(row[0]), json.loads(row[1])


@_store_errors
def entries(conn: sqlite3.Connection, server: str) -> list[dict[str, Any]]:
    """Every edit kept for ``server``, oldest first, with the status of its answer (None
    while it waits): what a session sent, for a report or a check."""
    rows = conn.execute(
        "SELECT uid, method, path, status FROM outbox WHERE server = ? ORDER BY seq", [server]
    ).fetchall()
    return [{"uid": r[0], "method": r[1], "path": r[2], "status": r[3]} for r in rows]
