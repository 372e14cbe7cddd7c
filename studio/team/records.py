"""Records as every copy of a project sees them (see ``studio.store.repos.team_records``).

The definitions and their reads live in the store, beside the tables they describe; this
module keeps the names the team workflow, its tests and its benchmark import.
"""

from __future__ import annotations

from studio.store.repos.team_records import (
    DERIVED,
    GLOBAL_KEY,
    KIND_BY_NAME,
    KINDS,
    LOCAL,
    SNAPSHOT_KINDS,
    Field,
    Kind,
    Record,
    Source,
    content_hash,
    dump,
    read,
    snapshot,
)

__all__ = [
    "DERIVED",
    "GLOBAL_KEY",
    "KINDS",
    "KIND_BY_NAME",
    "LOCAL",
    "SNAPSHOT_KINDS",
    "Field",
    "Kind",
    "Record",
    "Source",
    "content_hash",
    "dump",
    "read",
    "snapshot",
]
