"""The project schema, declared once: SQLAlchemy Core tables (no ORM) for SQLite and
PostgreSQL, plus the per-engine DDL that tables cannot say (triggers, PostgreSQL helper
functions, the sequences that keep "the order added").

This module describes the newest schema (Alembic's *head*). The migration chain in
``studio/store/alembic/versions`` builds it: ``0001_baseline`` creates every table as it
was at the last numbered schema (11), ``build_metadata(1)``: what later revisions add is
declared here with ``_since(number, ...)``, so each table is still written once. A test compares a
database upgraded through the whole chain with this metadata on both engines.

Importing this module imports SQLAlchemy: only migrations and their tests do, never a
plain project open (the window shows in about a second).
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import (
    REAL,
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Identity,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import DOUBLE_PRECISION

from studio.store.migrations import REVISIONS

# SQLite's INTEGER (an ``id INTEGER PRIMARY KEY`` is the rowid) is PostgreSQL's BIGINT;
# SQLite's REAL (8 bytes) is PostgreSQL's DOUBLE PRECISION.
INT: Any = Integer().with_variant(BigInteger(), "postgresql")
FLOAT: Any = REAL().with_variant(DOUBLE_PRECISION(), "postgresql")



def _id() -> Column:
    return Column("id", INT, Identity(), primary_key=True)


def _text(name: str, default: str | None = None, *, nullable: bool = False) -> Column:
    return Column(
        name, Text, nullable=nullable, server_default=default if default is not None else None
    )


def _int(name: str, default: int | None = None, *, nullable: bool = False) -> Column:
    return Column(
        name, INT, nullable=nullable,
        server_default=text(str(default)) if default is not None else None,
    )


def _opt_text(name: str) -> Column:
    return Column(name, Text)


def _opt_int(name: str) -> Column:
    return Column(name, INT)


def _identity() -> list[Column]:
    """The team identity (schema 5): the same uid in every copy, and the copy that made it."""
    return [_opt_text("uid"), _opt_text("origin_copy")]


def _in(column: str, values: tuple[str, ...]) -> CheckConstraint:
    return CheckConstraint(f"{column} IN ({', '.join(repr(v) for v in values)})")


def _fk(name: str, target: str, *, nullable: bool = True, ondelete: str | None = None,
        kind: object = INT) -> Column:
    return Column(name, kind, ForeignKey(target, ondelete=ondelete), nullable=nullable)  # type: ignore[arg-type]


ROLES = ("annotator", "reviewer", "rater", "researcher", "admin")
LABEL_SOURCES = ("imported", "person", "model")
REVIEW = ("suggested", "accepted", "rejected")

# Tables whose rows people make: every row gets a uid and its origin copy on insert.
UID_TABLES = (
    "people", "pairs", "captions", "attribute_vocab", "image_attributes",
    "retrieval_sessions", "session_turns", "transactions", "transaction_turns",
    "rating_assignments", "ratings", "audit_log",
    "outfit_ontology", "outfit_pictures", "outfit_regions", "outfit_region_attributes",
    "outfit_attributes",
)
def _since(number: int, upto: int, *items: Any) -> list[Any]:
    """Columns, indexes and constraints that revision ``number`` (1-based) added."""
    return list(items) if upto >= number else []


_LABEL = ("source", "model", "confidence", "status", "author", "reviewer")


def _label_columns() -> list[Column]:
    return [
        _text("source"), _text("model", ""), Column("confidence", FLOAT),
        _text("status", "suggested"), _text("author", ""), _text("reviewer", ""),
    ]


def build_metadata(upto: int | None = None) -> MetaData:
    """The tables at revision number ``upto`` of the chain (1: the baseline, schema 11;
    None: the newest). Later revisions' columns and indexes are given with ``_since``."""
    upto = len(REVISIONS) if upto is None else upto
    md = MetaData()
    Table("meta", md, Column("key", Text, primary_key=True), _text("value"))
    Table(
        "people", md, _id(),
        Column("name", Text, nullable=False, unique=True),
        _text("role", "annotator"), _text("created_at"), *_identity(),
        _in("role", ROLES),
    )
    Table(
        "images", md,
        Column("id", Text, primary_key=True),
        Column("path", Text, nullable=False, unique=True),
        _opt_text("content_hash"), _opt_int("width"), _opt_int("height"), _opt_int("bytes"),
        _text("category", ""), _text("split", ""), _text("title", ""), _text("description", ""),
        _text("source", ""), _int("missing", 0), _text("added_at"),
        # The order the images were added (exports and galleries list in it). Filled on insert:
        # a sequence's default on PostgreSQL, a trigger on SQLite (see ``image_order_ddl``).
        *_since(2, upto, Column("seq", INT), Index("images_seq", "seq")),
        Index("images_category_split", "category", "split"),
        Index("images_content_hash", "content_hash"),
    )
    Table(
        "pairs", md, _id(),
        _fk("reference_id", "images.id", nullable=False, kind=Text),
        _fk("target_id", "images.id", kind=Text),
        _text("category", ""), _text("split", ""), _text("method", "imported"),
        Column("score", FLOAT), _text("source", ""), _text("external_key"), _text("created_at"),
        _text("extra", "{}"), *_identity(),
        # The pair's submitted and accepted captions, kept by triggers on ``captions``
        # (``live_captions_ddl``): a "next pair" scan passes a full pair on this column
        # instead of counting its captions.
        *_since(5, upto, Column("live_captions", INT, nullable=False, server_default=text("0")),
                Index("pairs_live", "live_captions", "id")),
        _in("method", ("imported", "tfidf", "embedding", "manual")),
        UniqueConstraint("source", "external_key"),
        Index("pairs_reference", "reference_id"),
        Index("pairs_target", "target_id"),
        Index("pairs_category_split", "category", "split"),
    )
    Table(
        "captions", md, _id(),
        _fk("pair_id", "pairs.id", nullable=False, ondelete="CASCADE"),
        _int("position", 0), _text("text"), _fk("author_id", "people.id"),
        _text("status", "submitted"), _int("flagged", 0), _opt_text("reject_reason"),
        _fk("reviewer_id", "people.id"), _text("created_at"), _text("updated_at"),
        _opt_text("reviewed_at"), *_identity(),
        _opt_int("rank"), _opt_int("gallery_size"), _opt_text("rank_model"),
        _opt_text("rank_strategy"), _opt_text("rank_index_key"), _opt_text("rank_text"),
        _opt_text("ranked_at"),
        _in("status", ("draft", "submitted", "accepted", "rejected")),
        Index("captions_pair", "pair_id"),
        # a person's captions (the queues ask "did I write on this pair?"; revision 5)
        *_since(5, upto, Index("captions_author", "author_id")),
        # one draft per person and pair
        Index(
            "captions_one_draft", "pair_id", "author_id", unique=True,
            sqlite_where=text("status = 'draft'"), postgresql_where=text("status = 'draft'"),
        ),
    )
    Table(
        "audit_log", md, _id(),
        _text("at"), _text("actor"), _text("action"), _text("entity"), _opt_text("entity_id"),
        _opt_text("before"), _opt_text("after"), *_identity(), _opt_text("entity_uid"),
        Index("audit_entity", "entity", "entity_id"),
        Index("audit_entity_uid", "entity_uid"),
        Index("audit_origin_copy", "origin_copy"),
    )
    Table(
        "attribute_vocab", md, _id(),
        Column("name", Text, nullable=False, unique=True), _text("type"),
        _text("synonyms", "[]"), _text("created_at"), *_identity(), _opt_text("changed_at"),
        _in("type", ("texture", "fabric", "shape", "part", "style", "color")),
    )
    Table(
        "image_attributes", md, _id(),
        _fk("image_id", "images.id", nullable=False, ondelete="CASCADE", kind=Text),
        _fk("attribute_id", "attribute_vocab.id", nullable=False, ondelete="CASCADE"),
        _text("source"), _text("model", ""), Column("confidence", FLOAT),
        _text("status", "suggested"), _text("updated_at"), *_identity(),
        _in("source", ("text", "model", "person")), _in("status", REVIEW),
        UniqueConstraint("image_id", "attribute_id", "source", "model"),
        Index("image_attributes_attribute", "attribute_id", "status"),
    )
    Table(
        "retrieval_sessions", md, _id(),
        _text("mode"), _text("strategy"), _text("model"),
        _fk("target_id", "images.id", kind=Text), _fk("person_id", "people.id"),
        _text("title", ""), _text("created_at"), *_identity(),
        _in("mode", ("composed", "chat")),
    )
    Table(
        "session_turns", md, _id(),
        _fk("session_id", "retrieval_sessions.id", nullable=False, ondelete="CASCADE"),
        _int("turn_index"), _text("kind"), _fk("reference_id", "images.id", kind=Text),
        _text("text", ""), _opt_text("question"), _opt_text("answer"), _text("results", "[]"),
        _opt_int("target_rank"), _text("timings", "{}"), _text("created_at"), *_identity(),
        _in("kind", ("composed", "rollback", "combination", "chat")),
        UniqueConstraint("session_id", "turn_index"),
    )
    Table(
        "transactions", md, _id(),
        _text("dataset"), _text("external_key"), _text("category", ""),
        _text("origin", "imported"), _text("created_at"), *_identity(),
        _in("origin", ("imported", "session", "simulated", "built")),
        UniqueConstraint("dataset", "external_key"),
    )
    Table(
        "transaction_images", md,
        _fk("transaction_id", "transactions.id", nullable=False, ondelete="CASCADE"),
        _int("position"), _fk("image_id", "images.id", nullable=False, kind=Text),
        _text("caption", ""),
        PrimaryKeyConstraint("transaction_id", "position"),
    )
    Table(
        "transaction_turns", md,
        _fk("transaction_id", "transactions.id", nullable=False, ondelete="CASCADE"),
        _int("turn_index"), _int("reference_position"), _text("text"),
        _text("status", "accepted"), *_identity(), _opt_text("changed_at"),
        _in("status", ("draft", "accepted")),
        PrimaryKeyConstraint("transaction_id", "turn_index"),
    )
    Table(
        "rating_assignments", md, _id(),
        _text("sample"),
        _fk("transaction_id", "transactions.id", nullable=False, ondelete="CASCADE"),
        _int("turn_index"), _fk("rater_id", "people.id", nullable=False), _int("order_key"),
        _text("status", "pending"), *_identity(), _opt_text("changed_at"),
        _in("status", ("pending", "done", "skipped", "flagged")),
        UniqueConstraint("sample", "transaction_id", "turn_index", "rater_id"),
    )
    _SCORES = ("accuracy", "historical_awareness", "granularity", "consistency", "coverage")
    Table(
        "ratings", md,
        Column(
            "assignment_id", INT, ForeignKey("rating_assignments.id", ondelete="CASCADE"),
            primary_key=True, autoincrement=False,
        ),
        *[_opt_int(score) for score in _SCORES],
        _text("note", ""), _text("updated_at"), *_identity(),
        *[CheckConstraint(f"{score} BETWEEN 1 AND 5") for score in _SCORES],
    )
    Table(
        "experiment_runs", md, _id(),
        _text("kind"), _text("config"), _text("summary"), _text("ranks", "[]"), _text("created_at"),
    )
    # Schema 5 (team work): assignments, handed-out packages, what came back.
    Table(
        "team_assignments", md, _id(),
        _fk("person_id", "people.id", nullable=False), _text("kind"), _text("item"),
        _text("batch", ""), _text("assigned_by", ""), _text("assigned_at"),
        _in("kind", ("caption", "review", "attributes")),
        UniqueConstraint("kind", "item", "person_id"),
        Index("team_assignments_person", "person_id", "kind"),
    )
    Table(
        "team_packages", md,
        Column("package_id", Text, primary_key=True),
        _fk("person_id", "people.id", nullable=False), _text("path"), _text("created_at"),
        _text("handed_out", "{}"), _opt_text("returned_at"), _int("merges", 0),
        _text("last_report", "{}"),
    )
    Table(
        "team_merged", md, _text("package_id"), _text("uid"), _text("hash"),
        PrimaryKeyConstraint("package_id", "uid"),
    )
    Table(
        "team_base", md, Column("uid", Text, primary_key=True), _text("kind"), _text("hash"),
    )
    # Schema 6: gallery membership (an image may be in several galleries), in split-file order.
    Table(
        "gallery_members", md,
        _fk("image_id", "images.id", nullable=False, ondelete="CASCADE", kind=Text),
        _text("category", ""), _text("split", ""), _int("position"),
        # ties of ``position`` in the order the memberships were added (as ``images.seq``)
        *_since(2, upto, Column("seq", INT), Index("gallery_members_seq", "seq")),
        PrimaryKeyConstraint("category", "split", "image_id"),
        Index("gallery_members_order", "category", "split", "position"),
        Index("gallery_members_image", "image_id"),
    )
    Table(
        "source_formats", md, _text("source"), _text("file"), _text("format"),
        PrimaryKeyConstraint("source", "file"),
    )
    Table(
        "transaction_layouts", md,
        Column(
            "transaction_id", INT, ForeignKey("transactions.id", ondelete="CASCADE"),
            primary_key=True, autoincrement=False,
        ),
        _text("keys", "[]"), _text("image_refs", "[]"),
    )
    Table(
        "dialog_sources", md,
        Column(
            "session_id", INT, ForeignKey("retrieval_sessions.id", ondelete="CASCADE"),
            primary_key=True, autoincrement=False,
        ),
        _text("dataset"), _int("position"),
        UniqueConstraint("dataset", "position"),
    )
    # Schema 8: several ground truths per pair; image_id has no foreign key on purpose.
    Table(
        "pair_ground_truths", md,
        _fk("pair_id", "pairs.id", nullable=False, ondelete="CASCADE"),
        _text("image_id"), _int("position"),
        PrimaryKeyConstraint("pair_id", "image_id"),
        Index("pair_ground_truths_image", "image_id"),
    )
    # Schema 9: head-to-toe outfits.
    Table(
        "outfit_ontology", md, _id(),
        Column("key", Text, nullable=False, unique=True), _text("kind"), _text("name"),
        _text("supercategory", ""), _opt_int("level"), _text("taxonomy_id", ""),
        _text("description", ""), _opt_int("external_id"), _text("origin", "studio"),
        _opt_text("raw"), _int("position", 0), *_identity(),
        _in("kind", ("category", "attribute", "outfit")),
        UniqueConstraint("kind", "supercategory", "name"),
        Index(
            "outfit_ontology_external", "kind", "external_id", unique=True,
            sqlite_where=text("external_id IS NOT NULL"),
            postgresql_where=text("external_id IS NOT NULL"),
        ),
    )
    Table(
        "outfit_sources", md, _id(),
        _text("dataset"), _text("file"), _text("header", "{}"), _opt_text("format"),
        _text("imported_at"),
        UniqueConstraint("dataset", "file"),
    )
    Table(
        "outfit_pictures", md,
        Column("image_id", Text, ForeignKey("images.id", ondelete="CASCADE"), primary_key=True),
        _text("general", ""), _text("concise", ""), _text("description_source", "person"),
        _text("dataset", ""), _opt_int("external_id"), _opt_text("raw"), _int("position", 0),
        _text("updated_at"), *_identity(),
        _in("description_source", LABEL_SOURCES),
        Index(
            "outfit_pictures_external", "dataset", "external_id", unique=True,
            sqlite_where=text("external_id IS NOT NULL"),
            postgresql_where=text("external_id IS NOT NULL"),
        ),
    )
    Table(
        "outfit_regions", md, _id(),
        _fk("image_id", "outfit_pictures.image_id", nullable=False, ondelete="CASCADE", kind=Text),
        _fk("garment_id", "outfit_regions.id", ondelete="SET NULL"),
        _text("role"), _fk("category_id", "outfit_ontology.id", nullable=False),
        _opt_text("box"), _opt_text("polygon"), _opt_text("rle"), *_label_columns(),
        _opt_int("external_id"), _opt_text("raw"), _int("position", 0), _text("updated_at"),
        *_identity(),
        _in("role", ("garment", "part")), _in("source", LABEL_SOURCES), _in("status", REVIEW),
        Index("outfit_regions_image", "image_id", "position"),
        Index("outfit_regions_garment", "garment_id"),
    )
    Table(
        "outfit_region_attributes", md, _id(),
        _fk("region_id", "outfit_regions.id", nullable=False, ondelete="CASCADE"),
        _fk("attribute_id", "outfit_ontology.id", nullable=False), *_label_columns(),
        _int("position", 0), _text("updated_at"), *_identity(),
        _in("source", LABEL_SOURCES), _in("status", REVIEW),
        UniqueConstraint("region_id", "attribute_id", "source", "model"),
    )
    Table(
        "outfit_attributes", md, _id(),
        _fk("image_id", "outfit_pictures.image_id", nullable=False, ondelete="CASCADE", kind=Text),
        _fk("value_id", "outfit_ontology.id", nullable=False), *_label_columns(),
        _int("position", 0), _text("updated_at"), *_identity(),
        _in("source", LABEL_SOURCES), _in("status", REVIEW),
        UniqueConstraint("image_id", "value_id", "source", "model"),
    )
    # Schemas 10-11: the team server.
    Table(
        "server_tokens", md, _id(),
        _text("name"), _text("role"), _text("salt"), _text("digest"), _text("created_at"),
        _opt_text("revoked_at"),
        _in("role", ("annotator", "reviewer", "rater", "coordinator")),
        Index("server_tokens_name", "name"),
    )
    Table(
        "server_leases", md, _id(),
        _text("kind"), _int("item_id"), _text("holder"),
        Column("expires_at", FLOAT, nullable=False), _text("created_at"), _text("item_key", ""),
        Index("server_leases_item", "kind", "item_id"),
        Index("server_leases_holder", "holder"),
        Index("server_leases_key", "kind", "item_key"),
    )
    Table(
        "server_edits", md,
        Column("uid", Text, primary_key=True), _text("holder"), _int("status"), _text("answer"),
        _text("applied_at"),
    )
    for name in UID_TABLES:  # the same uid in every copy: one row per uid
        Index(f"{name}_uid", md.tables[name].c.uid, unique=True)
    return md


# -- what tables cannot say: triggers and functions, per engine ------------------------

# table -> the columns whose change is an edit (``changed_at`` follows them)
CHANGED_AT = {
    "attribute_vocab": ("name", "type", "synonyms"),
    "rating_assignments": ("status", "order_key"),
    "transaction_turns": ("text", "status", "reference_position"),
}
# audit_log.entity -> (table, how the entity id names a row of it)
_AUDIT_ENTITIES = {
    "caption": "captions",
    "pair": "pairs",
    "rating": "rating_assignments",
    "rating_assignment": "rating_assignments",
    "retrieval_session": "retrieval_sessions",
    "attribute_vocab": "attribute_vocab",
}
_ORIGIN = "(SELECT value FROM meta WHERE key = 'origin_id')"

# The schema's own PostgreSQL helpers, used by its defaults and triggers (never by a
# repository's statement): SQLite's timestamp text (``changed_at``), a 32-hex uid (every
# record's identity) and a cast that gives NULL for text that is no number (the audit
# trigger's entity lookup). SQLite has no functions of these names: its triggers spell
# the same with its own built-ins. (Projects before 0003_no_look_alikes also had SQLite
# look-alikes here, for statements rewritten at run time: that revision drops them.)
PG_FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION cir_now() RETURNS text LANGUAGE sql VOLATILE AS
$$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"') $$;
CREATE OR REPLACE FUNCTION cir_uid() RETURNS text LANGUAGE sql VOLATILE AS
$$ SELECT replace(gen_random_uuid()::text, '-', '') $$;
CREATE OR REPLACE FUNCTION cir_int(value text) RETURNS bigint LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN value ~ '^\s*-?[0-9]{1,18}\s*$' THEN value::bigint END $$;
"""


def _audit_lookup(dialect: str) -> str:
    """CASE NEW.entity ... END: the uid of the row an audit row is about."""
    cast = (
        "CAST(NEW.entity_id AS INTEGER)" if dialect == "sqlite" else "cir_int(NEW.entity_id)"
    )
    cases = [
        f"WHEN '{kind}' THEN (SELECT uid FROM {table} WHERE id = {cast})"
        for kind, table in _AUDIT_ENTITIES.items()
    ]
    cases.append(
        "WHEN 'transaction_turn' THEN (SELECT uid FROM transaction_turns "
        "WHERE transaction_id || ':' || turn_index = NEW.entity_id)"
    )
    otherwise = " ELSE NULL" if dialect == "sqlite" else ""  # the same: NULL
    return f"CASE NEW.entity {' '.join(cases)}{otherwise} END"


def audit_identity_postgresql() -> str:
    """PostgreSQL's ``audit_log_identity()`` since ``0004_audit_lookup``: the same values as
    the baseline's, the entity's uid looked up by one statement chosen in PL/pgSQL.

    The baseline's single ``CASE`` held a subquery per entity kind, and PostgreSQL starts
    every subquery of an expression each time it runs it: 0.18-0.23 ms of the server's
    time per audit row (``pg_stat_user_functions``, one ``bench_store`` writer), a quarter
    of a write's. This starts the one lookup the row needs (0.07-0.08 ms).
    """
    by_table: dict[str, list[str]] = {}
    for kind, table in _AUDIT_ENTITIES.items():
        by_table.setdefault(table, []).append(kind)
    branches = " ".join(
        f"{'IF' if n == 0 else 'ELSIF'} NEW.entity IN "
        f"({', '.join(repr(kind) for kind in kinds)}) THEN "
        f"SELECT uid INTO NEW.entity_uid FROM {table} WHERE id = target;"
        for n, (table, kinds) in enumerate(by_table.items())
    )
    return (
        "CREATE OR REPLACE FUNCTION audit_log_identity() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ DECLARE target bigint; BEGIN "
        "IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN "
        "NEW.uid := coalesce(NEW.uid, cir_uid()); "
        f"NEW.origin_copy := coalesce(NEW.origin_copy, {_ORIGIN}); "
        "IF NEW.entity_uid IS NULL THEN "
        "IF NEW.entity = 'transaction_turn' THEN "
        "SELECT uid INTO NEW.entity_uid FROM transaction_turns "
        "WHERE transaction_id || ':' || turn_index = NEW.entity_id; "
        f"ELSIF NEW.entity IN ({', '.join(repr(kind) for kind in _AUDIT_ENTITIES)}) THEN "
        f"target := cir_int(NEW.entity_id); {branches} END IF; "
        "END IF; END IF; END IF; RETURN NEW; END $$"
    )


def baseline_ddl(dialect: str) -> list[str]:
    """Schema 11's triggers and functions (and the copy's identity rows), per engine.

    SQLite's AFTER triggers fill what an insert left empty; PostgreSQL's BEFORE triggers
    set the row's values before it is written. Same meaning, same rule on both: a row
    that arrives with its identity (a copied or merged row) keeps it.
    """
    if dialect == "sqlite":
        return _sqlite_baseline()
    return _postgresql_baseline()


def _sqlite_baseline() -> list[str]:
    now = "strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')"
    uid = "lower(hex(randomblob(16)))"
    out = [
        f"INSERT OR IGNORE INTO meta (key, value) VALUES ('project_id', {uid})",
        f"INSERT OR IGNORE INTO meta (key, value) VALUES ('origin_id', {uid})",
    ]
    for table in UID_TABLES:
        extra = ""
        if table in CHANGED_AT:
            extra = f", changed_at = coalesce(NEW.changed_at, {now})"
        if table == "audit_log":
            extra = f", entity_uid = coalesce(NEW.entity_uid, {_audit_lookup('sqlite')})"
        out.append(
            f"CREATE TRIGGER {table}_identity AFTER INSERT ON {table} "
            f"WHEN NEW.uid IS NULL OR NEW.origin_copy IS NULL BEGIN "
            f"UPDATE {table} SET uid = coalesce(NEW.uid, {uid}), "
            f"origin_copy = coalesce(NEW.origin_copy, {_ORIGIN}){extra} "
            f"WHERE rowid = NEW.rowid; END"
        )
    for table, columns in CHANGED_AT.items():
        out.append(
            f"CREATE TRIGGER {table}_changed AFTER UPDATE OF {', '.join(columns)} ON {table} "
            f"WHEN NEW.changed_at IS OLD.changed_at BEGIN "
            f"UPDATE {table} SET changed_at = {now} WHERE rowid = NEW.rowid; END"
        )
    # An image whose own category and split name a gallery is a member of it.
    out.append(
        "CREATE TRIGGER images_gallery_insert AFTER INSERT ON images "
        "WHEN NEW.category != '' OR NEW.split != '' BEGIN "
        "INSERT OR IGNORE INTO gallery_members (image_id, category, split, position) "
        "VALUES (NEW.id, NEW.category, NEW.split, "
        "(SELECT coalesce(max(position), -1) + 1 FROM gallery_members "
        "WHERE category = NEW.category AND split = NEW.split)); END"
    )
    out.append(
        "CREATE TRIGGER images_gallery_update AFTER UPDATE OF category, split ON images "
        "WHEN OLD.category != NEW.category OR OLD.split != NEW.split BEGIN "
        "DELETE FROM gallery_members "
        "WHERE image_id = OLD.id AND category = OLD.category AND split = OLD.split; "
        "INSERT OR IGNORE INTO gallery_members (image_id, category, split, position) "
        "SELECT NEW.id, NEW.category, NEW.split, "
        "(SELECT coalesce(max(position), -1) + 1 FROM gallery_members "
        "WHERE category = NEW.category AND split = NEW.split) "
        "WHERE NEW.category != '' OR NEW.split != ''; END"
    )
    return out


def _postgresql_baseline() -> list[str]:
    out = [PG_FUNCTIONS]
    out += [
        "INSERT INTO meta (key, value) VALUES ('project_id', cir_uid()) ON CONFLICT DO NOTHING",
        "INSERT INTO meta (key, value) VALUES ('origin_id', cir_uid()) ON CONFLICT DO NOTHING",
    ]
    for table in UID_TABLES:
        extra = ""
        if table in CHANGED_AT:
            extra = "NEW.changed_at := coalesce(NEW.changed_at, cir_now());"
        if table == "audit_log":
            extra = f"NEW.entity_uid := coalesce(NEW.entity_uid, {_audit_lookup('postgresql')});"
        out.append(
            f"CREATE FUNCTION {table}_identity() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF NEW.uid IS NULL OR NEW.origin_copy IS NULL THEN "
            "NEW.uid := coalesce(NEW.uid, cir_uid()); "
            f"NEW.origin_copy := coalesce(NEW.origin_copy, {_ORIGIN}); {extra} "
            "END IF; RETURN NEW; END $$"
        )
        out.append(
            f"CREATE TRIGGER {table}_identity BEFORE INSERT ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_identity()"
        )
    for table, columns in CHANGED_AT.items():
        changed = " OR ".join(f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in columns)
        out.append(
            f"CREATE FUNCTION {table}_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF ({changed}) AND NEW.changed_at IS NOT DISTINCT FROM OLD.changed_at THEN "
            "NEW.changed_at := cir_now(); END IF; RETURN NEW; END $$"
        )
        out.append(
            f"CREATE TRIGGER {table}_changed BEFORE UPDATE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_changed()"
        )
    out.append(
        "CREATE FUNCTION images_gallery() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'UPDATE' THEN "
        "IF OLD.category = NEW.category AND OLD.split = NEW.split THEN RETURN NEW; END IF; "
        "DELETE FROM gallery_members "
        "WHERE image_id = OLD.id AND category = OLD.category AND split = OLD.split; "
        "END IF; "
        "IF NEW.category <> '' OR NEW.split <> '' THEN "
        "INSERT INTO gallery_members (image_id, category, split, position) "
        "VALUES (NEW.id, NEW.category, NEW.split, "
        "(SELECT coalesce(max(position), -1) + 1 FROM gallery_members "
        "WHERE category = NEW.category AND split = NEW.split)) ON CONFLICT DO NOTHING; "
        "END IF; RETURN NEW; END $$"
    )
    out.append(
        "CREATE TRIGGER images_gallery_insert AFTER INSERT ON images "
        "FOR EACH ROW EXECUTE FUNCTION images_gallery()"
    )
    out.append(
        "CREATE TRIGGER images_gallery_update AFTER UPDATE OF category, split ON images "
        "FOR EACH ROW EXECUTE FUNCTION images_gallery()"
    )
    return out


ORDERED = ("images", "gallery_members")  # tables whose ``seq`` keeps the order added


def image_order_ddl(dialect: str) -> list[str]:
    """How ``seq`` is filled on insert when the insert does not give it (a copy does).

    PostgreSQL: a sequence's next value (a writer never waits for another's number).
    SQLite: one more than the largest, set right after the insert (SQLite has one writer
    at a time, so two inserts never see the same largest value).
    """
    out = []
    for table in ORDERED:
        if dialect == "sqlite":
            out.append(
                f"CREATE TRIGGER {table}_seq AFTER INSERT ON {table} WHEN NEW.seq IS NULL "
                f"BEGIN UPDATE {table} SET seq = "
                f"(SELECT coalesce(max(seq), 0) + 1 FROM {table}) "
                f"WHERE rowid = NEW.rowid; END"
            )
        else:
            out.append(f"CREATE SEQUENCE {table}_seq_numbers OWNED BY {table}.seq")
            out.append(
                f"ALTER TABLE {table} ALTER COLUMN seq "
                f"SET DEFAULT nextval('{table}_seq_numbers')"
            )
    return out


LIVE_STATUSES = "('submitted', 'accepted')"  # a caption that counts toward the pair's quota


def live_captions_ddl(dialect: str) -> list[str]:
    """Triggers that keep ``pairs.live_captions`` equal to the pair's captions whose status
    is submitted or accepted, whatever writes them (the studio, a merge, a copy, a delete).

    Every "next pair" query asked "fewer live captions than the quota?" with a count per
    pair it passed, and the queue is scanned in id order from the first pair: once most
    pairs had their captions, each new lease counted the captions of every full pair
    before it (20,000 pairs, 15,000 full: 70-130 ms a lease on PostgreSQL, 90 ms a next
    pair on SQLite). The column answers that from the pair's own row.
    """
    live_new, live_old = f"NEW.status IN {LIVE_STATUSES}", f"OLD.status IN {LIVE_STATUSES}"
    if dialect == "sqlite":
        return [
            f"CREATE TRIGGER captions_live_insert AFTER INSERT ON captions WHEN {live_new} "
            "BEGIN UPDATE pairs SET live_captions = live_captions + 1 "
            "WHERE id = NEW.pair_id; END",
            f"CREATE TRIGGER captions_live_delete AFTER DELETE ON captions WHEN {live_old} "
            "BEGIN UPDATE pairs SET live_captions = live_captions - 1 "
            "WHERE id = OLD.pair_id; END",
            "CREATE TRIGGER captions_live_update AFTER UPDATE OF status, pair_id ON captions "
            f"WHEN ({live_old}) != ({live_new}) OR (OLD.pair_id != NEW.pair_id "
            f"AND ({live_old} OR {live_new})) BEGIN "
            "UPDATE pairs SET live_captions = live_captions - 1 "
            f"WHERE id = OLD.pair_id AND {live_old}; "
            "UPDATE pairs SET live_captions = live_captions + 1 "
            f"WHERE id = NEW.pair_id AND {live_new}; END",
        ]
    return [
        "CREATE OR REPLACE FUNCTION captions_live() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN "
        "IF TG_OP = 'UPDATE' THEN "
        f"IF OLD.pair_id = NEW.pair_id AND ({live_old}) = ({live_new}) THEN RETURN NULL; "
        "END IF; END IF; "
        f"IF TG_OP IN ('UPDATE', 'DELETE') THEN IF {live_old} THEN "
        "UPDATE pairs SET live_captions = live_captions - 1 WHERE id = OLD.pair_id; "
        "END IF; END IF; "
        f"IF TG_OP IN ('UPDATE', 'INSERT') THEN IF {live_new} THEN "
        "UPDATE pairs SET live_captions = live_captions + 1 WHERE id = NEW.pair_id; "
        "END IF; END IF; "
        "RETURN NULL; END $$",
        "CREATE TRIGGER captions_live AFTER INSERT OR DELETE OR UPDATE OF status, pair_id "
        "ON captions FOR EACH ROW EXECUTE FUNCTION captions_live()",
    ]


def count_live_captions() -> str:
    """Set every pair's ``live_captions`` from its captions (the revision that adds the
    column counts the captions a project already had)."""
    return (
        "UPDATE pairs SET live_captions = (SELECT count(*) FROM captions c "
        f"WHERE c.pair_id = pairs.id AND c.status IN {LIVE_STATUSES})"
    )


metadata = build_metadata()


@functools.cache
def baseline_metadata() -> MetaData:
    """The tables as schema 11 had them (what ``0001_baseline`` creates). Built once per
    process: each new project runs the baseline, and building the tables took about 45 ms
    of the 113 a new SQLite project cost."""
    return build_metadata(1)
