"""The order images were added is data: ``images.seq`` and ``gallery_members.seq``.

SQLite's ``rowid`` held that order by accident, and PostgreSQL's row position (``ctid``),
which stood in for it, moves when a row is updated (Set image folder updates every
image). Existing rows are numbered in the order they were added: SQLite's ``rowid``;
on PostgreSQL, whose order is already lost to updates, ``added_at`` then the row position
(gallery members by position). New rows get theirs on insert (``schema.image_order_ddl``).

Revision ID: 0002_image_order
Revises: 0001_baseline
"""

import sqlalchemy as sa
from alembic import op

from studio.store import schema

revision = "0002_image_order"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None

_FIRST = {"images": "added_at, ctid", "gallery_members": "category, split, position, ctid"}


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in schema.ORDERED:
        with op.batch_alter_table(table) as batch:  # a plain ADD COLUMN on both engines
            batch.add_column(sa.Column("seq", schema.INT, nullable=True))
        if dialect == "sqlite":
            op.execute(f"UPDATE {table} SET seq = rowid")
        else:
            op.execute(
                f"UPDATE {table} t SET seq = n.number FROM (SELECT ctid AS row, "
                f"row_number() OVER (ORDER BY {_FIRST[table]}) AS number FROM {table}) n "
                "WHERE t.ctid = n.row"
            )
        op.create_index(f"{table}_seq", table, ["seq"])
    for statement in schema.image_order_ddl(dialect):
        op.execute(statement)
    if dialect != "sqlite":
        for table in schema.ORDERED:
            op.execute(
                f"SELECT setval('{table}_seq_numbers', "
                f"coalesce((SELECT max(seq) FROM {table}), 0) + 1, false)"
            )


def downgrade() -> None:
    raise NotImplementedError("CIR Studio upgrades projects; it never downgrades them.")
