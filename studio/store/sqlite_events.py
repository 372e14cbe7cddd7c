"""Project events across programs on one SQLite file: ``PRAGMA data_version``.

PostgreSQL projects hear each other by LISTEN/NOTIFY (``pg_events``). SQLite has no such
channel, so an open studio asks, about twice a second, on a connection of its own:
``PRAGMA data_version`` changes exactly when another connection committed to the file,
and costs one call into SQLite (no file read) while nothing changes. When it changed, the
audit rows written since the last look name what changed (``kinds_for(entity)``); rows
this project object wrote itself were announced when they committed and are skipped.

Writes that keep no audit row (caption draft autosaves, queue steps) are not heard from
other programs; every change a person makes has one (ARCHITECTURE.md, "Data").

Qt-free: the studio's services call ``poll`` on their IO lane; events go out through the
project (``Project.poll_changes``) and reach views by the same dispatcher as a job's.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.errors import StoreError
from studio.project_events import KINDS, kinds_for

log = logging.getLogger(__name__)


class ChangeWatcher:
    """Reports the kinds other connections committed since the last ``poll``."""

    def __init__(
        self,
        open_connection: Callable[[], Any],
        own_audit_ids: set[int],
    ) -> None:
        self._open = open_connection
        self._own = own_audit_ids  # the project adds the audit ids it writes
        self._lock = threading.Lock()
        self._db: Any = None
        self._version: int | None = None
        self._last_id = 0
        self.closed = False

    def poll(self) -> list[str]:
        """The kinds others wrote since the last poll, in KINDS order (the first poll only
        takes the starting point). Never raises for a database that went away."""
        with self._lock:
            if self.closed:
                return []
            try:
                return self._poll()
            except (StoreError, sqlite3.Error, OSError) as error:
                log.debug("change watcher: %s", error)
                return []

    def _poll(self) -> list[str]:
        if self._db is None:
            self._db = self._open()
            self._version = self._data_version()
            self._last_id = self._max_audit_id()
            return []
        version = self._data_version()
        if version == self._version:
            return []
        self._version = version
        rows = self._db.execute(
            "SELECT id, entity FROM audit_log WHERE id > :last_id ORDER BY id", {"last_id": self._last_id}
        ).fetchall()
        changed: set[str] = set()
        for audit_id, entity in rows:
            if audit_id in self._own:
                self._own.discard(audit_id)
            else:
                changed.update(kinds_for(entity))
            self._last_id = max(self._last_id, int(audit_id))
        return [kind for kind in KINDS if kind in changed]

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _max_audit_id(self) -> int:
        row = self._db.execute("SELECT coalesce(max(id), 0) FROM audit_log").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self.closed = True
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None


def watcher_for(path: Path, read_only_reason: str | None, journal: str,
                own_audit_ids: set[int]) -> ChangeWatcher:
    """A watcher with a dedicated connection to the project file (opened on first poll)."""
    from studio.store.database import connect

    return ChangeWatcher(lambda: connect(path, read_only_reason, journal=journal), own_audit_ids)
