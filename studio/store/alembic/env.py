"""Alembic's environment for the project schema, run programmatically only.

``studio.store.schema_upgrade`` passes an open SQLAlchemy connection (inside the write
transaction it began) and a callback that records the schema number in the same
transaction; there is no alembic.ini and no database URL here.
"""

from __future__ import annotations

from alembic import context

from studio.store.schema import metadata

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=True,  # SQLite's ALTER TABLE: batch mode, for every later revision
    transactional_ddl=True,  # both engines roll DDL back: a failed upgrade leaves nothing
)
with context.begin_transaction():
    context.run_migrations()
    after = config.attributes.get("after")
    if after is not None:
        after(connection)
