"""The schema the team workflow adds: global record identity, edit times, assignments.

Every table whose rows people make gets ``uid`` (128 random bits as 32 hex digits, the
same in every copy of the project) and ``origin_copy`` (the ``origin_id`` of the copy that
made the row). Both are filled by an ``AFTER INSERT`` trigger when an insert leaves them
empty, so no insert path in the code base can forget them. Tables whose rows change
without an ``updated_at`` column get ``changed_at``, kept by an ``AFTER UPDATE`` trigger,
so a merge can tell which of two edits is the later. The audit log gets the uid of the
entity each row is about, so "which copy changed what since packing" is a query.

SQLite's ``ALTER TABLE ADD COLUMN`` cannot take an expression default, hence triggers.
The whole migration is SQLite dialect (``randomblob``, ``strftime``, ``rowid``, trigger
syntax): a PostgreSQL engine writes its own version of it.
"""

from __future__ import annotations

NOW = "strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')"  # dialect: sqlite
NEW_UID = "lower(hex(randomblob(16)))"  # dialect: sqlite
ORIGIN = "(SELECT value FROM meta WHERE key = 'origin_id')"

UID_TABLES = (
    "people",
    "pairs",
    "captions",
    "attribute_vocab",
    "image_attributes",
    "retrieval_sessions",
    "session_turns",
    "transactions",
    "transaction_turns",
    "rating_assignments",
    "ratings",
    "audit_log",
)

# table -> (columns whose change is an edit, SQL giving an existing row's first changed_at)
CHANGED_AT: dict[str, tuple[str, str]] = {
    "attribute_vocab": ("name, type, synonyms", "created_at"),
    "rating_assignments": (
        "status, order_key",
        "(SELECT created_at FROM transactions t WHERE t.id = transaction_id)",
    ),
    "transaction_turns": (
        "text, status, reference_position",
        "(SELECT created_at FROM transactions t WHERE t.id = transaction_id)",
    ),
}

# audit_log.entity -> how to find the uid of the row an audit row is about
AUDIT_ENTITIES = {
    "caption": "SELECT uid FROM captions WHERE id = CAST(NEW.entity_id AS INTEGER)",
    "pair": "SELECT uid FROM pairs WHERE id = CAST(NEW.entity_id AS INTEGER)",
    "rating": "SELECT uid FROM rating_assignments WHERE id = CAST(NEW.entity_id AS INTEGER)",
    "rating_assignment": (
        "SELECT uid FROM rating_assignments WHERE id = CAST(NEW.entity_id AS INTEGER)"
    ),
    "retrieval_session": (
        "SELECT uid FROM retrieval_sessions WHERE id = CAST(NEW.entity_id AS INTEGER)"
    ),
    "attribute_vocab": "SELECT uid FROM attribute_vocab WHERE id = CAST(NEW.entity_id AS INTEGER)",
    "transaction_turn": (
        "SELECT uid FROM transaction_turns "
        "WHERE transaction_id || ':' || turn_index = NEW.entity_id"
    ),
}

TEAM_TABLES = """
CREATE TABLE team_assignments (
    id INTEGER PRIMARY KEY,
    person_id INTEGER NOT NULL REFERENCES people (id),
    kind TEXT NOT NULL CHECK (kind IN ('caption', 'review', 'attributes')),
    item TEXT NOT NULL,
    batch TEXT NOT NULL DEFAULT '',
    assigned_by TEXT NOT NULL DEFAULT '',
    assigned_at TEXT NOT NULL,
    UNIQUE (kind, item, person_id)
);
CREATE INDEX team_assignments_person ON team_assignments (person_id, kind);
CREATE TABLE team_packages (
    package_id TEXT PRIMARY KEY,
    person_id INTEGER NOT NULL REFERENCES people (id),
    path TEXT NOT NULL,
    created_at TEXT NOT NULL,
    handed_out TEXT NOT NULL DEFAULT '{}',
    returned_at TEXT,
    merges INTEGER NOT NULL DEFAULT 0,
    last_report TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE team_merged (
    package_id TEXT NOT NULL,
    uid TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (package_id, uid)
);
CREATE TABLE team_base (
    uid TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""


def _identity_sql() -> str:  # dialect: sqlite
    parts = [
        f"INSERT OR IGNORE INTO meta (key, value) VALUES ('project_id', {NEW_UID});",
        f"INSERT OR IGNORE INTO meta (key, value) VALUES ('origin_id', {NEW_UID});",
    ]
    for table in UID_TABLES:
        parts.append(f"ALTER TABLE {table} ADD COLUMN uid TEXT;")
        parts.append(f"ALTER TABLE {table} ADD COLUMN origin_copy TEXT;")
        parts.append(f"UPDATE {table} SET uid = {NEW_UID}, origin_copy = {ORIGIN};")
        parts.append(f"CREATE UNIQUE INDEX {table}_uid ON {table} (uid);")
    for table, (_, first) in CHANGED_AT.items():
        parts.append(f"ALTER TABLE {table} ADD COLUMN changed_at TEXT;")
        parts.append(f"UPDATE {table} SET changed_at = coalesce({first}, {NOW});")
    parts.append("ALTER TABLE audit_log ADD COLUMN entity_uid TEXT;")
    cases = " ".join(f"WHEN '{k}' THEN ({sql})" for k, sql in AUDIT_ENTITIES.items())
    backfill = cases.replace("NEW.", "audit_log.")
    parts.append(
        f"UPDATE audit_log SET entity_uid = CASE audit_log.entity {backfill} ELSE NULL END;"
    )
    parts.append("CREATE INDEX audit_entity_uid ON audit_log (entity_uid);")
    parts.append("CREATE INDEX audit_origin_copy ON audit_log (origin_copy);")
    for table in UID_TABLES:
        extra = ""
        if table in CHANGED_AT:
            extra = f", changed_at = coalesce(NEW.changed_at, {NOW})"
        if table == "audit_log":
            extra = (
                f", entity_uid = coalesce(NEW.entity_uid, CASE NEW.entity {cases} ELSE NULL END)"
            )
        parts.append(
            f"CREATE TRIGGER {table}_identity AFTER INSERT ON {table} "
            f"WHEN NEW.uid IS NULL OR NEW.origin_copy IS NULL BEGIN "
            f"UPDATE {table} SET uid = coalesce(NEW.uid, {NEW_UID}), "
            f"origin_copy = coalesce(NEW.origin_copy, {ORIGIN}){extra} "
            f"WHERE rowid = NEW.rowid; END;"
        )
    for table, (columns, _) in CHANGED_AT.items():
        parts.append(
            f"CREATE TRIGGER {table}_changed AFTER UPDATE OF {columns} ON {table} "
            f"WHEN NEW.changed_at IS OLD.changed_at BEGIN "
            f"UPDATE {table} SET changed_at = {NOW} WHERE rowid = NEW.rowid; END;"
        )
    return "\n".join(parts)


def identity_triggers(tables: tuple[str, ...]) -> str:
    """Unique uid indexes and the identity trigger for tables created with ``uid`` and
    ``origin_copy`` columns after the team migration (later features' tables)."""
    parts = []
    for table in tables:
        parts.append(f"CREATE UNIQUE INDEX {table}_uid ON {table} (uid);")
        parts.append(
            f"CREATE TRIGGER {table}_identity AFTER INSERT ON {table} "
            f"WHEN NEW.uid IS NULL OR NEW.origin_copy IS NULL BEGIN "
            f"UPDATE {table} SET uid = coalesce(NEW.uid, {NEW_UID}), "
            f"origin_copy = coalesce(NEW.origin_copy, {ORIGIN}) "
            f"WHERE rowid = NEW.rowid; END;"  # dialect: sqlite
        )
    return "\n".join(parts) + "\n"


TEAM_MIGRATION = _identity_sql() + TEAM_TABLES
