"""The database errors a feature module may need to name, without naming an engine.

``DATABASE_ERRORS`` is what a store engine raises for a statement it refused (SQLite's
``sqlite3.Error``; the PostgreSQL engine raises its refusals as subclasses of it,
``PgIntegrityError`` / ``PgOperationalError``, so psycopg's own errors never leave the
store): the command line turns it into one line, and the team merge into "nothing of it
was merged". Busy and read-only
projects already arrive as ``ProjectBusyError`` / ``ProjectReadOnlyError``.
"""

from __future__ import annotations

import sqlite3

from studio.errors import StudioError

DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)


class RecordRejected(StudioError):
    """A row the project's rules refuse (a unique key or a check): the message says why."""
