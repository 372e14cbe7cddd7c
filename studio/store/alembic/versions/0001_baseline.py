"""Baseline: the schema as the last numbered migration (11) left it, on either engine.

A file made before Alembic (``PRAGMA user_version`` 11, or 1-10 brought to 11 by
``studio.store.legacy_migrations``) is stamped here, not run through it; a new project
runs it: every table of ``schema.build_metadata(1)`` plus the triggers and helper
functions of ``schema.baseline_ddl`` for its engine.

Revision ID: 0001_baseline
Revises:
"""

from alembic import op

from studio.store import schema

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    schema.baseline_metadata().create_all(bind, checkfirst=False)  # an empty database
    for statement in schema.baseline_ddl(bind.dialect.name):
        op.execute(statement)


def downgrade() -> None:
    raise NotImplementedError("CIR Studio upgrades projects; it never downgrades them.")
