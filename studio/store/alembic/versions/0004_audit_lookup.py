"""PostgreSQL's audit trigger looks the entity up with one statement, not one per kind.

Every audit row's BEFORE INSERT trigger (``audit_log_identity``) sets the row's uid, the
copy it was made in and the uid of the record it is about. The baseline found that uid
with one ``CASE`` holding a subquery per kind of record, and PostgreSQL starts every
subquery of an expression each time it evaluates it: a quarter of the server's time per
write (``schema.audit_identity_postgresql`` has the figures). The new body sets the same
values, choosing the one lookup in PL/pgSQL. SQLite projects change in nothing but their
revision (SQLite evaluates only the branch it takes).

Revision ID: 0004_audit_lookup
Revises: 0003_no_look_alikes
"""

from alembic import op

from studio.store.schema import audit_identity_postgresql

revision = "0004_audit_lookup"
down_revision = "0003_no_look_alikes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        return
    op.execute(audit_identity_postgresql())


def downgrade() -> None:
    raise NotImplementedError("CIR Studio upgrades projects; it never downgrades them.")
