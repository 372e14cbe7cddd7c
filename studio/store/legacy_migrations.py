"""The numbered schema migrations of SQLite files made before Alembic (schemas 1-11).

Frozen history, SQLite only: a file at ``PRAGMA user_version`` 1-10 is brought to 11 by
these scripts (one transaction each), then stamped at Alembic's ``0001_baseline`` and
upgraded by the revision chain (``studio.store.migrations``). Never edit them; new schema
changes are Alembic revisions in ``studio/store/alembic/versions``. Version 1 is the annotation core; version 2 adds everything the
later panes need (attributes, retrieval sessions, transactions, ratings, experiments).
"""

from __future__ import annotations

# -- schema 5, the team work (was team_schema.py) -------------------------------------
#
# The schema the team workflow adds: global record identity, edit times, assignments.
#
# Every table whose rows people make gets ``uid`` (128 random bits as 32 hex digits, the
# same in every copy of the project) and ``origin_copy`` (the ``origin_id`` of the copy that
# made the row). Both are filled by an ``AFTER INSERT`` trigger when an insert leaves them
# empty, so no insert path in the code base can forget them. Tables whose rows change
# without an ``updated_at`` column get ``changed_at``, kept by an ``AFTER UPDATE`` trigger,
# so a merge can tell which of two edits is the later. The audit log gets the uid of the
# entity each row is about, so "which copy changed what since packing" is a query.
#
# SQLite's ``ALTER TABLE ADD COLUMN`` cannot take an expression default, hence triggers.
# The whole migration is SQLite dialect (``randomblob``, ``strftime``, ``rowid``, trigger
# syntax): a PostgreSQL engine writes its own version of it.

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


MIGRATION_1 = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL DEFAULT 'annotator'
        CHECK (role IN ('annotator', 'reviewer', 'rater', 'researcher', 'admin')),
    created_at TEXT NOT NULL
);
CREATE TABLE images (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    content_hash TEXT,
    width INTEGER,
    height INTEGER,
    bytes INTEGER,
    category TEXT NOT NULL DEFAULT '',
    split TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    missing INTEGER NOT NULL DEFAULT 0,
    added_at TEXT NOT NULL
);
CREATE INDEX images_category_split ON images (category, split);
CREATE INDEX images_content_hash ON images (content_hash);
CREATE TABLE pairs (
    id INTEGER PRIMARY KEY,
    reference_id TEXT NOT NULL REFERENCES images (id),
    target_id TEXT REFERENCES images (id),
    category TEXT NOT NULL DEFAULT '',
    split TEXT NOT NULL DEFAULT '',
    method TEXT NOT NULL DEFAULT 'imported'
        CHECK (method IN ('imported', 'tfidf', 'embedding', 'manual')),
    score REAL,
    source TEXT NOT NULL DEFAULT '',
    external_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (source, external_key)
);
CREATE INDEX pairs_reference ON pairs (reference_id);
CREATE INDEX pairs_target ON pairs (target_id);
CREATE INDEX pairs_category_split ON pairs (category, split);
CREATE TABLE captions (
    id INTEGER PRIMARY KEY,
    pair_id INTEGER NOT NULL REFERENCES pairs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    author_id INTEGER REFERENCES people (id),
    status TEXT NOT NULL DEFAULT 'submitted'
        CHECK (status IN ('draft', 'submitted', 'accepted', 'rejected')),
    flagged INTEGER NOT NULL DEFAULT 0,
    reject_reason TEXT,
    reviewer_id INTEGER REFERENCES people (id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    reviewed_at TEXT
);
CREATE INDEX captions_pair ON captions (pair_id);
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    entity TEXT NOT NULL,
    entity_id TEXT,
    before TEXT,
    after TEXT
);
CREATE INDEX audit_entity ON audit_log (entity, entity_id);
"""

MIGRATION_2 = """
CREATE TABLE attribute_vocab (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('texture', 'fabric', 'shape', 'part', 'style', 'color')),
    synonyms TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE TABLE image_attributes (
    id INTEGER PRIMARY KEY,
    image_id TEXT NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    attribute_id INTEGER NOT NULL REFERENCES attribute_vocab (id) ON DELETE CASCADE,
    source TEXT NOT NULL CHECK (source IN ('text', 'model', 'person')),
    model TEXT NOT NULL DEFAULT '',
    confidence REAL,
    status TEXT NOT NULL DEFAULT 'suggested'
        CHECK (status IN ('suggested', 'accepted', 'rejected')),
    updated_at TEXT NOT NULL,
    UNIQUE (image_id, attribute_id, source, model)
);
CREATE INDEX image_attributes_attribute ON image_attributes (attribute_id, status);
CREATE TABLE retrieval_sessions (
    id INTEGER PRIMARY KEY,
    mode TEXT NOT NULL CHECK (mode IN ('composed', 'chat')),
    strategy TEXT NOT NULL,
    model TEXT NOT NULL,
    target_id TEXT REFERENCES images (id),
    person_id INTEGER REFERENCES people (id),
    title TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE TABLE session_turns (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES retrieval_sessions (id) ON DELETE CASCADE,
    turn_index INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('composed', 'rollback', 'combination', 'chat')),
    reference_id TEXT REFERENCES images (id),
    text TEXT NOT NULL DEFAULT '',
    question TEXT,
    answer TEXT,
    results TEXT NOT NULL DEFAULT '[]',
    target_rank INTEGER,
    timings TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    UNIQUE (session_id, turn_index)
);
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    external_key TEXT NOT NULL,
    category TEXT NOT NULL DEFAULT '',
    origin TEXT NOT NULL DEFAULT 'imported'
        CHECK (origin IN ('imported', 'session', 'simulated', 'built')),
    created_at TEXT NOT NULL,
    UNIQUE (dataset, external_key)
);
CREATE TABLE transaction_images (
    transaction_id INTEGER NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    image_id TEXT NOT NULL REFERENCES images (id),
    caption TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (transaction_id, position)
);
CREATE TABLE transaction_turns (
    transaction_id INTEGER NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    turn_index INTEGER NOT NULL,
    reference_position INTEGER NOT NULL,
    text TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'accepted' CHECK (status IN ('draft', 'accepted')),
    PRIMARY KEY (transaction_id, turn_index)
);
CREATE TABLE rating_assignments (
    id INTEGER PRIMARY KEY,
    sample TEXT NOT NULL,
    transaction_id INTEGER NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    turn_index INTEGER NOT NULL,
    rater_id INTEGER NOT NULL REFERENCES people (id),
    order_key INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'done', 'skipped', 'flagged')),
    UNIQUE (sample, transaction_id, turn_index, rater_id)
);
CREATE TABLE ratings (
    assignment_id INTEGER PRIMARY KEY REFERENCES rating_assignments (id) ON DELETE CASCADE,
    accuracy INTEGER CHECK (accuracy BETWEEN 1 AND 5),
    historical_awareness INTEGER CHECK (historical_awareness BETWEEN 1 AND 5),
    granularity INTEGER CHECK (granularity BETWEEN 1 AND 5),
    consistency INTEGER CHECK (consistency BETWEEN 1 AND 5),
    coverage INTEGER CHECK (coverage BETWEEN 1 AND 5),
    note TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
);
CREATE TABLE experiment_runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    summary TEXT NOT NULL,
    ranks TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
"""

# Version 3: dataset-specific fields of a pair that have no column (CIRR's ``img_set`` and
# ``target_soft``), kept verbatim as JSON so an export writes them back unchanged.
MIGRATION_3 = """
ALTER TABLE pairs ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
"""

# Version 4: one draft per person and pair, backed by a partial unique index. Older files
# may hold duplicates (two windows saving at once); the newest draft of each (pair, author)
# stays a draft, the others become 'rejected' with the reason below, their text kept, and
# each change gets an audit-log row (actor 'schema 4'), so no typed text is lost.
MIGRATION_4 = """
CREATE TEMP TABLE superseded_drafts AS
SELECT c.id FROM captions c
WHERE c.status = 'draft' AND c.author_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM captions d
    WHERE d.pair_id = c.pair_id AND d.author_id = c.author_id AND d.status = 'draft'
      AND (d.updated_at > c.updated_at OR (d.updated_at = c.updated_at AND d.id > c.id))
);
INSERT INTO audit_log (at, actor, action, entity, entity_id, before, after)
SELECT strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), 'schema 4', 'supersede draft', 'caption',
       CAST(c.id AS TEXT),
       json_object('flagged', json(CASE c.flagged WHEN 0 THEN 'false' ELSE 'true' END),
                   'reject_reason', c.reject_reason, 'status', c.status, 'text', c.text),
       json_object('flagged', json(CASE c.flagged WHEN 0 THEN 'false' ELSE 'true' END),
                   'reject_reason', 'duplicate draft: a newer draft by the same person is kept',
                   'status', 'rejected', 'text', c.text)
FROM captions c WHERE c.id IN (SELECT id FROM superseded_drafts);
UPDATE captions
SET status = 'rejected',
    reject_reason = 'duplicate draft: a newer draft by the same person is kept'
WHERE id IN (SELECT id FROM superseded_drafts);
DROP TABLE superseded_drafts;
CREATE UNIQUE INDEX captions_one_draft ON captions (pair_id, author_id) WHERE status = 'draft';
"""

# Version 5 (team work): global record identity (uid + origin), edit times, assignments,
# handed-out packages; generated in studio/store/team_schema.py (see there).
MIGRATION_5 = TEAM_MIGRATION

# Version 6: gallery membership is its own relation. Fashion IQ lists some images in more
# than one gallery (``split.shirt.val.json`` and ``split.toptee.val.json``; even
# ``toptee.test`` and ``shirt.train``), so one category and split per image cannot hold
# it. ``images.category``/``split`` stay as the image's first (primary) gallery; every
# gallery, with its members in the order its split file lists them, lives in
# ``gallery_members``. Existing projects get one membership per image from its
# category/split, in the order the images were added. The triggers keep every other way
# of adding images (folder import, demo project) in step, so a gallery never lacks an
# image whose own category and split name it. ``source_formats`` remembers how each
# imported file was written (indent, separators, ASCII escaping, key order, final
# newline), so an export reproduces the original bytes. ``dialog_sources`` ties a recorded
# chat session to the dialogue file (ChatIR questioner) and entry it was imported from.
# ``transaction_layouts`` keeps an imported FashionMT entry's key order and its image
# references as written (paths such as ``/data/fashion-iq/images/B00ABC.png``).
MIGRATION_6 = """
CREATE TABLE gallery_members (
    image_id TEXT NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    category TEXT NOT NULL DEFAULT '',
    split TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL,
    PRIMARY KEY (category, split, image_id)
);
CREATE INDEX gallery_members_order ON gallery_members (category, split, position);
CREATE INDEX gallery_members_image ON gallery_members (image_id);
INSERT INTO gallery_members (image_id, category, split, position)
    SELECT id, category, split,
           ROW_NUMBER() OVER (PARTITION BY category, split ORDER BY rowid) - 1
    FROM images WHERE category != '' OR split != '';
CREATE TRIGGER images_gallery_insert AFTER INSERT ON images
WHEN NEW.category != '' OR NEW.split != ''
BEGIN
    INSERT OR IGNORE INTO gallery_members (image_id, category, split, position)
    VALUES (NEW.id, NEW.category, NEW.split,
            (SELECT coalesce(max(position), -1) + 1 FROM gallery_members
             WHERE category = NEW.category AND split = NEW.split));
END;
CREATE TRIGGER images_gallery_update AFTER UPDATE OF category, split ON images
WHEN OLD.category != NEW.category OR OLD.split != NEW.split
BEGIN
    DELETE FROM gallery_members
    WHERE image_id = OLD.id AND category = OLD.category AND split = OLD.split;
    INSERT OR IGNORE INTO gallery_members (image_id, category, split, position)
    SELECT NEW.id, NEW.category, NEW.split,
           (SELECT coalesce(max(position), -1) + 1 FROM gallery_members
            WHERE category = NEW.category AND split = NEW.split)
    WHERE NEW.category != '' OR NEW.split != '';
END;
CREATE TABLE source_formats (
    source TEXT NOT NULL,
    file TEXT NOT NULL,
    format TEXT NOT NULL,
    PRIMARY KEY (source, file)
);
CREATE TABLE transaction_layouts (
    transaction_id INTEGER PRIMARY KEY REFERENCES transactions (id) ON DELETE CASCADE,
    keys TEXT NOT NULL DEFAULT '[]',
    image_refs TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE dialog_sources (
    session_id INTEGER PRIMARY KEY REFERENCES retrieval_sessions (id) ON DELETE CASCADE,
    dataset TEXT NOT NULL,
    position INTEGER NOT NULL,
    UNIQUE (dataset, position)
);
"""

# Version 7: the target's rank for each caption when it was last ranked (reference + caption
# under the named model and strategy), so reviewers can sort by it and see it go stale.
MIGRATION_7 = """
ALTER TABLE captions ADD COLUMN rank INTEGER;
ALTER TABLE captions ADD COLUMN gallery_size INTEGER;
ALTER TABLE captions ADD COLUMN rank_model TEXT;
ALTER TABLE captions ADD COLUMN rank_strategy TEXT;
ALTER TABLE captions ADD COLUMN rank_index_key TEXT;
ALTER TABLE captions ADD COLUMN rank_text TEXT;
ALTER TABLE captions ADD COLUMN ranked_at TEXT;
"""

# Version 8 (#26): several ground truths per pair (CIRCO's ``gt_img_ids``), in file order.
# ``image_id`` has no foreign key: a ground truth may be an image whose file is not (yet)
# in the project, and it must survive so an export gives the list back as it was.
MIGRATION_8 = """
CREATE TABLE pair_ground_truths (
    pair_id INTEGER NOT NULL REFERENCES pairs (id) ON DELETE CASCADE,
    image_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (pair_id, image_id)
);
CREATE INDEX pair_ground_truths_image ON pair_ground_truths (image_id);
"""

# Version 9: head-to-toe outfit annotation (issue #25). A picture (an image) holds garments,
# a garment holds parts; each region has a box and/or a polygon or RLE mask in image
# pixels and a category from the outfit ontology (Fashionpedia's categories and attributes,
# plus the studio's outfit values: style, occasion, season, scene, and colours). Region
# attributes and outfit attributes are labels like ``image_attributes``: source
# (imported, person, model), confidence, review status, author and reviewer. ``raw`` keeps
# each imported entry as the file had it, so an export writes every field back.
# Every table people write gets the team identity (uid, origin_copy) by trigger; an
# ontology entry is named the same in every copy by ``key`` (kind/supercategory/name).
OUTFIT_TABLES = """
CREATE TABLE outfit_ontology (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('category', 'attribute', 'outfit')),
    name TEXT NOT NULL,
    supercategory TEXT NOT NULL DEFAULT '',
    level INTEGER,
    taxonomy_id TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    external_id INTEGER,
    origin TEXT NOT NULL DEFAULT 'studio',
    raw TEXT,
    position INTEGER NOT NULL DEFAULT 0,
    uid TEXT,
    origin_copy TEXT,
    UNIQUE (kind, supercategory, name)
);
CREATE UNIQUE INDEX outfit_ontology_external ON outfit_ontology (kind, external_id)
    WHERE external_id IS NOT NULL;
CREATE TABLE outfit_sources (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    file TEXT NOT NULL,
    header TEXT NOT NULL DEFAULT '{}',
    format TEXT,
    imported_at TEXT NOT NULL,
    UNIQUE (dataset, file)
);
CREATE TABLE outfit_pictures (
    image_id TEXT PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    general TEXT NOT NULL DEFAULT '',
    concise TEXT NOT NULL DEFAULT '',
    description_source TEXT NOT NULL DEFAULT 'person'
        CHECK (description_source IN ('imported', 'person', 'model')),
    dataset TEXT NOT NULL DEFAULT '',
    external_id INTEGER,
    raw TEXT,
    position INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    uid TEXT,
    origin_copy TEXT
);
CREATE UNIQUE INDEX outfit_pictures_external ON outfit_pictures (dataset, external_id)
    WHERE external_id IS NOT NULL;
CREATE TABLE outfit_regions (
    id INTEGER PRIMARY KEY,
    image_id TEXT NOT NULL REFERENCES outfit_pictures (image_id) ON DELETE CASCADE,
    garment_id INTEGER REFERENCES outfit_regions (id) ON DELETE SET NULL,
    role TEXT NOT NULL CHECK (role IN ('garment', 'part')),
    category_id INTEGER NOT NULL REFERENCES outfit_ontology (id),
    box TEXT,
    polygon TEXT,
    rle TEXT,
    source TEXT NOT NULL CHECK (source IN ('imported', 'person', 'model')),
    model TEXT NOT NULL DEFAULT '',
    confidence REAL,
    status TEXT NOT NULL DEFAULT 'suggested'
        CHECK (status IN ('suggested', 'accepted', 'rejected')),
    author TEXT NOT NULL DEFAULT '',
    reviewer TEXT NOT NULL DEFAULT '',
    external_id INTEGER,
    raw TEXT,
    position INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    uid TEXT,
    origin_copy TEXT
);
CREATE INDEX outfit_regions_image ON outfit_regions (image_id, position);
CREATE INDEX outfit_regions_garment ON outfit_regions (garment_id);
CREATE TABLE outfit_region_attributes (
    id INTEGER PRIMARY KEY,
    region_id INTEGER NOT NULL REFERENCES outfit_regions (id) ON DELETE CASCADE,
    attribute_id INTEGER NOT NULL REFERENCES outfit_ontology (id),
    source TEXT NOT NULL CHECK (source IN ('imported', 'person', 'model')),
    model TEXT NOT NULL DEFAULT '',
    confidence REAL,
    status TEXT NOT NULL DEFAULT 'suggested'
        CHECK (status IN ('suggested', 'accepted', 'rejected')),
    author TEXT NOT NULL DEFAULT '',
    reviewer TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    uid TEXT,
    origin_copy TEXT,
    UNIQUE (region_id, attribute_id, source, model)
);
CREATE TABLE outfit_attributes (
    id INTEGER PRIMARY KEY,
    image_id TEXT NOT NULL REFERENCES outfit_pictures (image_id) ON DELETE CASCADE,
    value_id INTEGER NOT NULL REFERENCES outfit_ontology (id),
    source TEXT NOT NULL CHECK (source IN ('imported', 'person', 'model')),
    model TEXT NOT NULL DEFAULT '',
    confidence REAL,
    status TEXT NOT NULL DEFAULT 'suggested'
        CHECK (status IN ('suggested', 'accepted', 'rejected')),
    author TEXT NOT NULL DEFAULT '',
    reviewer TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    uid TEXT,
    origin_copy TEXT,
    UNIQUE (image_id, value_id, source, model)
);
"""
OUTFIT_IDENTITY_TABLES = (
    "outfit_ontology",
    "outfit_pictures",
    "outfit_regions",
    "outfit_region_attributes",
    "outfit_attributes",
)
# PostgreSQL gets the same tables with its own identity triggers (``pg_schema``).
MIGRATION_9 = OUTFIT_TABLES + identity_triggers(OUTFIT_IDENTITY_TABLES)
# Version 10: the team server (issue #23, ``studio.server``). Tokens are stored as a salted
# scrypt digest, never the token; a lease says who holds which item until when (seconds
# since the epoch, so expiry is one comparison on any engine); an applied edit remembers
# the client's ``edit_uid`` with the answer it got, so a resent edit is applied once.
MIGRATION_10 = """
CREATE TABLE server_tokens (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'rater', 'coordinator')),
    salt TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX server_tokens_name ON server_tokens (name);
CREATE TABLE server_leases (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    holder TEXT NOT NULL,
    expires_at REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX server_leases_item ON server_leases (kind, item_id);
CREATE INDEX server_leases_holder ON server_leases (holder);
CREATE TABLE server_edits (
    uid TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    status INTEGER NOT NULL,
    answer TEXT NOT NULL,
    applied_at TEXT NOT NULL
);
"""
# Version 11: leases on items named by text (the attribute queue leases an image, whose id
# is text); ``item_id`` stays the key of pairs and captions, ``item_key`` names the rest.
MIGRATION_11 = """
ALTER TABLE server_leases ADD COLUMN item_key TEXT NOT NULL DEFAULT '';
CREATE INDEX server_leases_key ON server_leases (kind, item_key);
"""

MIGRATIONS: tuple[str, ...] = (
    MIGRATION_1,
    MIGRATION_2,
    MIGRATION_3,
    MIGRATION_4,
    MIGRATION_5,
    MIGRATION_6,
    MIGRATION_7,
    MIGRATION_8,
    MIGRATION_9,
    MIGRATION_10,
    MIGRATION_11,
)
LEGACY_VERSION = len(MIGRATIONS)  # the last numbered schema: Alembic's baseline
