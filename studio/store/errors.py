"""The store's own errors: what a caller may catch, whatever engine holds the project.

No ``sqlite3`` or ``psycopg`` type leaves ``studio/store/`` (a layer test checks that no
module outside it names one). Each engine turns its refusals into these at its connection
and transaction wrapper (``database.StudioDatabase`` for SQLite, ``pg_database`` for
PostgreSQL), the engine's own error kept as ``__cause__``:

- ``StoreError``: the base; every one is a ``ProjectError`` (one clear line at the edge).
- ``ProjectBusyError``: another writer held what this write needed past the busy timeout
  (SQLite's write lock; on PostgreSQL a row lock, a deadlock or a serialization failure).
- ``ProjectReadOnlyError``: the file, its folder or the database account cannot write.
- ``StoreUnreachable``: the PostgreSQL server does not answer (stopped, wrong host or port,
  connection dropped).
- ``RecordRejected``: a row the project's rules refuse: ``rule`` names the constraint or
  index (the same name on both engines), ``table`` the table, ``key`` the record's key
  where the engine says it.
- ``StatementFailed``: any other refusal (a damaged file, a statement the schema does not
  fit); the message says what the database answered.

``NotPortable`` is not a refusal of the database but a mistake in the code: a statement
that does not name its parameters (``?`` placeholders, values given as a list), which
PostgreSQL would not run as written. It is a ``TypeError``, never shown as a user's error.
"""

from __future__ import annotations

import sqlite3

from studio.errors import ProjectBusyError, ProjectReadOnlyError, StoreError

# An engine's error raised past the store's wrapper by a library layer (sqlite_utils
# releasing its savepoint while a damaged page is read): the command line's last net says
# it in one line. Named here so that no module outside the store names an engine type.
ESCAPED_ENGINE_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)

__all__ = [
    "ProjectBusyError",
    "ProjectReadOnlyError",
    "RecordRejected",
    "NotPortable",
    "StatementFailed",
    "StoreError",
    "StoreUnreachable",
]


class StoreUnreachable(StoreError):
    """The database server cannot be reached; nothing was written."""


class RecordRejected(StoreError):
    """A row the project's rules refuse (a unique key, a reference, a check).

    ``rule``: the constraint or index, named as the schema names it (an inline ``UNIQUE``
    by PostgreSQL's convention ``<table>_<columns>_key`` on both engines); ``table``: where
    the row was going; ``key``: the refused key and values where the engine reports them.
    """

    def __init__(
        self, message: str, *, rule: str = "", table: str = "", key: str = ""
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.table = table
        self.key = key


class StatementFailed(StoreError):
    """The database refused a statement for a reason that is not a rule (see the message)."""


class NotPortable(TypeError):
    """A statement the store cannot run as written on every engine (see the module)."""
