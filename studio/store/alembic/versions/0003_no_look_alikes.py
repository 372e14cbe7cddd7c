"""PostgreSQL projects lose the SQLite look-alike functions.

Statements used to be written in SQLite's dialect and rewritten for PostgreSQL at run
time, and a PostgreSQL project carried functions that imitated SQLite's (``group_concat``
with its helper ``cir_concat``, two-argument ``max``/``min``, ``round(real, n)``,
``json_extract``). The repositories now write SQL both engines accept, so nothing calls
them: they go. The schema's own helpers (``cir_now``, ``cir_uid``, ``cir_int``, used by
defaults and triggers) stay. SQLite projects change in nothing but their revision.

Revision ID: 0003_no_look_alikes
Revises: 0002_image_order
"""

from alembic import op

revision = "0003_no_look_alikes"
down_revision = "0002_image_order"
branch_labels = None
depends_on = None

# In the project's own schema only (never a built-in of pg_catalog).
LOOK_ALIKES = (
    "AGGREGATE group_concat(text)",
    "AGGREGATE group_concat(text, text)",
    "FUNCTION cir_concat(text, text)",
    "FUNCTION cir_concat(text, text, text)",
    "FUNCTION max(double precision, double precision)",
    "FUNCTION min(double precision, double precision)",
    "FUNCTION max(bigint, bigint)",
    "FUNCTION min(bigint, bigint)",
    "FUNCTION round(double precision, integer)",
    "FUNCTION json_extract(text, text)",
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        return
    for kind_and_signature in LOOK_ALIKES:
        kind, signature = kind_and_signature.split(" ", 1)
        op.execute(
            f"DO $$ BEGIN EXECUTE format('DROP {kind} IF EXISTS %I.{signature}', "
            "current_schema()); END $$"
        )


def downgrade() -> None:
    raise NotImplementedError("CIR Studio upgrades projects; it never downgrades them.")
