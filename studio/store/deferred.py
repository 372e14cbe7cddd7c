"""The answer of a statement sent later (``defer``): read once it reached the server.

On PostgreSQL ``PgDatabase.defer`` sends a statement in the round trip of the
transaction's next statement (or of its COMMIT), so a repository can queue a rule's row
lock and the reads that must follow it, or a write whose rows are read only after the
commit, and pay one round trip for all of them. ``rows()`` answers the statement's rows as
dicts (as ``db.query``); asked before the statement was sent, it sends what waits to go
first (one round trip), so reading early is never wrong, only slower. SQLite runs a
deferred statement at once (same process: no round trip to save).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Deferred:
    """The rows of one deferred statement (see the module docstring)."""

    def __init__(self, send: Callable[[], None] | None = None) -> None:
        self._send = send
        self._rows: list[dict[str, Any]] | None = None
        self._cursor: Any = None

    @classmethod
    def of(cls, cursor: Any) -> Deferred:
        """The answer of a statement that already ran (its cursor), read now: a SQLite
        statement is finished by reading its rows."""
        answer = cls()
        answer.arrived(cursor)
        answer.rows()
        return answer

    def arrived(self, cursor: Any) -> None:
        """The statement reached the server; ``cursor`` holds its rows."""
        self._cursor = cursor
        self._send = None

    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            if self._cursor is None and self._send is not None:
                self._send()
            if self._cursor is None:
                raise RuntimeError(
                    "A deferred statement was never sent: its transaction or block was undone."
                )
            cursor, self._cursor = self._cursor, None
            names = _names(cursor)
            self._rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        return self._rows

    def row(self) -> dict[str, Any] | None:
        """The first row (None: the statement answered none)."""
        rows = self.rows()
        return rows[0] if rows else None


def _names(cursor: Any) -> list[str]:
    names = getattr(cursor, "names", None)  # PgCursor: without building ``description``
    if names is not None:
        return list(names())
    return [column[0] for column in cursor.description or ()]
