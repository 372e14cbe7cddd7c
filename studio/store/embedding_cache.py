"""The key file of an embedding cache folder: content hash -> (shard file, row).

The vectors themselves are ``.npy`` shards beside it (``studio.embeddings``); this small
SQLite file (``keys.sqlite``, WAL, one connection per thread) says where each hash's
vector lies and which images could not be read, with the reason. It stays a local file
whatever engine holds the project: the cache lives beside the project, never in it.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from studio.store.errors import ProjectBusyError, StatementFailed, StoreError
from studio.timeouts import cache_lock_timeout_s

KEYS_FILE = "keys.sqlite"
_CHUNK = 900  # hashes per IN (...) list: below SQLite's default parameter limit

Method = TypeVar("Method", bound=Callable[..., Any])


def _store_errors(method: Method) -> Method:
    """SQLite's errors leave as the store's (``studio.store.errors``), naming the file."""

    @functools.wraps(method)
    def wrapper(self: EmbeddingKeys, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise _translated(error, self.path) from error

    return wrapper  # type: ignore[return-value]


def _translated(error: sqlite3.Error, path: Path) -> StoreError:
    if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF in (5, 6):  # busy, locked
        return ProjectBusyError(f"the embedding cache {path} is busy; try again.")
    return StatementFailed(f"the embedding cache {path} refused the change ({error})")


class EmbeddingKeys:
    """The index of one model's cache folder."""

    @_store_errors
    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / KEYS_FILE
        self._local = threading.local()
        with self._db() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors "
                "(hash TEXT PRIMARY KEY, shard TEXT NOT NULL, row INTEGER NOT NULL)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS skipped (hash TEXT PRIMARY KEY, reason TEXT)")

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=cache_lock_timeout_s())
            db.execute("PRAGMA journal_mode=WAL")  # dialect: sqlite
            self._local.db = db
        return db

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    @_store_errors
    def count(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM vectors").fetchone()[0])

    @_store_errors
    def known(self, hashes: Iterable[str]) -> set[str]:
        """Hashes already embedded or already known to be unreadable."""
        wanted = list(dict.fromkeys(hashes))
        found: set[str] = set()
        db = self._db()
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for table in ("vectors", "skipped"):
                rows = db.execute(f"SELECT hash FROM {table} WHERE hash IN ({marks})", chunk)
                found.update(row[0] for row in rows)
        return found

    @_store_errors
    def skipped(self) -> dict[str, str]:
        rows = self._db().execute("SELECT hash, reason FROM skipped ORDER BY hash")
        return {str(digest): str(reason) for digest, reason in rows}

    @_store_errors
    def locations(self, hashes: Sequence[str]) -> dict[str, tuple[str, int]]:
        """hash -> (shard as stored, row) for the hashes that have a vector."""
        out: dict[str, tuple[str, int]] = {}
        db = self._db()
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), _CHUNK):
            chunk = unique[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                f"SELECT hash, shard, row FROM vectors WHERE hash IN ({marks})", chunk
            )
            out.update((str(h), (str(shard), int(row))) for h, shard, row in rows)
        return out

    @_store_errors
    def add_vectors(self, shard: str, hashes: Sequence[str]) -> None:
        """The rows of a shard just written, in one transaction (a later shard wins)."""
        with self._db() as db:
            db.executemany(
                "INSERT INTO vectors (hash, shard, row) VALUES (?, ?, ?) ON CONFLICT (hash) "
                "DO UPDATE SET shard = excluded.shard, row = excluded.row",
                [(h, shard, row) for row, h in enumerate(hashes)],
            )

    @_store_errors
    def add_skipped(self, reasons: Mapping[str, str]) -> None:
        if reasons:
            with self._db() as db:
                db.executemany(
                    "INSERT INTO skipped (hash, reason) VALUES (?, ?) "
                    "ON CONFLICT (hash) DO UPDATE SET reason = excluded.reason",
                    list(reasons.items()),
                )
