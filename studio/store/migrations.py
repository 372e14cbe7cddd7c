"""Schema versions: the numbered SQLite schemas of old (1-11), then one Alembic chain.

Every project, on either engine, is at one revision of the chain in
``studio/store/alembic/versions`` (its ``alembic_version`` table says which). Each
revision also has a number, the old ``PRAGMA user_version`` continued (the baseline is
11, the next 12 …), kept in step in ``user_version`` (SQLite) and ``cir_schema``
(PostgreSQL): a studio of any release compares one integer to refuse a project newer than
itself, and a team package says its schema the same way.

This module imports neither SQLAlchemy nor Alembic: opening a project that is already at
the newest revision reads two values with plain SQL and migrates nothing (the window shows
in about a second). ``studio.store.schema_upgrade`` runs the chain when one is needed.
"""

from __future__ import annotations

from studio.store.legacy_migrations import LEGACY_VERSION, MIGRATIONS

__all__ = ["LATEST_VERSION", "LEGACY_VERSION", "MIGRATIONS", "REVISIONS", "number_of"]

# The chain, oldest first; equal to the files in alembic/versions (a test checks).
REVISIONS = (
    "0001_baseline", "0002_image_order", "0003_no_look_alikes", "0004_audit_lookup",
    "0005_live_captions",
)
HEAD = REVISIONS[-1]
LATEST_VERSION = LEGACY_VERSION + len(REVISIONS) - 1  # the newest revision's number


def number_of(revision: str | None) -> int | None:
    """The schema number of a revision of this chain (None: not one this studio knows)."""
    if revision is None or revision not in REVISIONS:
        return None
    return LEGACY_VERSION + REVISIONS.index(revision)
