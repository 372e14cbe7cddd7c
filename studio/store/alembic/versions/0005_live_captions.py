"""A pair's live captions are a column: ``pairs.live_captions``, kept by triggers.

"Next pair" scans (the desktop's queue, the team server's leases) walk the pairs in id
order and asked, for every pair they passed, how many of its captions were submitted or
accepted. Once most pairs have their captions that is a count for each full pair before
the first open one, at every lease: 70-130 ms on PostgreSQL with 15,000 of 20,000 pairs
full, growing with the project. The column holds the count (``schema.live_captions_ddl``
keeps it); existing pairs are counted here. The lease's scan starts at the first pair
short of its captions (``pairs_live``), and a person's own captions are found by their
author (``captions_author``) instead of by reading every caption.

Revision ID: 0005_live_captions
Revises: 0004_audit_lookup
"""

import sqlalchemy as sa
from alembic import op

from studio.store import schema

revision = "0005_live_captions"
down_revision = "0004_audit_lookup"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN on both engines (SQLite takes NOT NULL with a default; a batch
    # "move and copy" would rebuild the table and drop its unnamed CHECK constraints)
    op.add_column(
        "pairs",
        sa.Column("live_captions", schema.INT, nullable=False, server_default=sa.text("0")),
    )
    op.execute(schema.count_live_captions())
    op.create_index("pairs_live", "pairs", ["live_captions", "id"])
    op.create_index("captions_author", "captions", ["author_id"])
    for statement in schema.live_captions_ddl(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    raise NotImplementedError("CIR Studio upgrades projects; it never downgrades them.")
