"""Records as every copy of a project sees them: keyed by uid, refs by global names.

A row's *content* is what a person made, with every local integer id replaced by
something the same in every copy (a person's name, a pair's uid, an attribute's name, an
image id). Two copies hold the same version of a record exactly when their contents hash
alike, which is how a work package's snapshot (``team_base``) tells the merge what
changed since packing. ``dump`` of all kinds is the project's user data, independent of
local ids: the tests compare projects with it.

The same reads serve the project and a work package (itself a project file, opened by
``studio.store.package_file``): a *source* is either. ``KINDS`` says which tables merge
and how their rows are named; it lives here because it is the schema seen as records.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from studio.store.package_file import PackageFile
    from studio.store.project import Project

# What records are read from: the open project, a work package, or (tests) a connection.
Source = Union["Project", "PackageFile", sqlite3.Connection]


def connection(source: Source) -> Any:
    """The connection behind a source (this thread's, for a project; ``sqlite3`` or the
    PostgreSQL engine's, which reads ``?`` parameters the same way)."""
    if isinstance(source, sqlite3.Connection) or hasattr(source, "execute"):
        return source  # already a connection
    from studio.store.package_file import PackageFile

    if isinstance(source, PackageFile):
        return source.conn
    return source.db.conn


# How a row of a parent table is named the same in every copy.
GLOBAL_KEY = {
    "people": "name",
    "pairs": "uid",
    "images": "id",
    "transactions": "uid",
    "attribute_vocab": "name",
    "rating_assignments": "uid",
    "retrieval_sessions": "uid",
    "outfit_ontology": "key",
    "outfit_pictures": "image_id",
    "outfit_regions": "uid",
}
LOCAL = ("id", "uid", "origin_copy")  # never content
# Derived per copy, never merged: a caption's stored target rank (studio.captions.ranks)
# depends on that copy's model and index; merging it would turn a recompute into an edit.
DERIVED: dict[str, tuple[str, ...]] = {
    "pairs": ("live_captions",),  # its captions' count, kept by triggers in every copy
    "captions": (
        "rank",
        "gallery_size",
        "rank_model",
        "rank_strategy",
        "rank_index_key",
        "rank_text",
        "ranked_at",
    ),
}


@dataclass(frozen=True)
class Field:
    """One content field: a column, or a foreign key read as its parent's global key."""

    name: str  # the column's name
    parent: str | None = None  # the parent table of a foreign key with a global key
    parent_column: str = "id"  # the column the foreign key points at

    def select(self) -> str:
        if self.parent is None:
            return f't."{self.name}"'
        key = GLOBAL_KEY[self.parent]
        return (
            f'(SELECT p."{key}" FROM "{self.parent}" p '
            f'WHERE p."{self.parent_column}" = t."{self.name}")'
        )


@dataclass(frozen=True)
class Kind:
    """One mergeable table. Its fields are read from the schema, so a column added by a
    later migration (by any feature) is merged without changes here."""

    name: str
    table: str
    key: tuple[str, ...] = ()  # natural key fields (a second way to find the same record)
    time: str | None = None  # the field holding the last edit time
    editable: bool = False  # rows change after insert (else insert-only)
    unify: bool = False  # same key, two uids: keep the smaller uid (nothing refers to it)
    extra: tuple[str, ...] = ()  # read-only extras by name (``EXTRAS``), keyed by ``t.id``
    order: str = ""  # SQL over ``t``: rows a row of the same table refers to come first

    def fields(self, source: Source) -> list[Field]:
        conn = connection(source)
        parents = foreign_keys(conn, self.table)
        out = []
        for column, _ in table_columns(conn, self.table):
            if column in LOCAL or column in DERIVED.get(self.table, ()):
                continue
            parent, to = parents.get(column, (None, "id"))
            out.append(Field(column, parent if parent in GLOBAL_KEY else None, to))
        return out


# -- the schema, read per engine (fields follow the schema, so later columns merge too) --


def _is_sqlite(conn: Any) -> bool:
    return isinstance(conn, sqlite3.Connection)


def table_columns(conn: Any, table: str) -> list[tuple[str, int]]:
    """(column, its place in the primary key or 0) of every column, in table order."""
    if _is_sqlite(conn):
        rows = conn.execute(f'PRAGMA table_info("{table}")')  # dialect: sqlite
        return [(str(row[1]), int(row[5])) for row in rows]
    keys = dict(
        conn.execute(
            "SELECT k.column_name, k.ordinal_position FROM information_schema.table_constraints "
            "c JOIN information_schema.key_column_usage k ON k.constraint_name = "
            "c.constraint_name AND k.table_schema = c.table_schema AND k.table_name = "
            "c.table_name WHERE c.table_schema = current_schema() AND c.table_name = :table "
            "AND c.constraint_type = 'PRIMARY KEY'",
            {"table": table},
        ).fetchall()
    )
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = :table ORDER BY ordinal_position",
        {"table": table},
    ).fetchall()
    return [(str(row[0]), int(keys.get(row[0], 0))) for row in rows]


def foreign_keys(conn: Any, table: str) -> dict[str, tuple[str, str]]:
    """column -> (parent table, parent column) of the table's single-column foreign keys."""
    if _is_sqlite(conn):
        rows = conn.execute(f'PRAGMA foreign_key_list("{table}")')  # dialect: sqlite
        return {str(row[3]): (str(row[2]), str(row[4] or "id")) for row in rows}
    rows = conn.execute(  # dialect: postgresql (pg_catalog)
        "SELECT a.attname, p.relname, pa.attname FROM pg_constraint c "
        "JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class p ON p.oid = c.confrelid "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
        "JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1] "
        "WHERE c.contype = 'f' AND t.relname = :table AND t.relnamespace = "
        "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())",
        {"table": table},
    ).fetchall()
    return {str(row[0]): (str(row[1]), str(row[2])) for row in rows}


def _transaction_images(conn: Any) -> dict[Any, str]:
    """transaction id -> its images ``[[position, image id, caption], …]`` in position
    order, as compact JSON text. Built here, not by the database's JSON functions (SQLite's
    ``json_group_array`` and PostgreSQL's ``json_agg`` share no spelling), so the text is
    the same on both engines and so are the hashes: exactly what ``json_group_array``
    wrote for SQLite projects before."""
    grouped: dict[Any, list[list[Any]]] = {}
    rows = conn.execute(
        "SELECT transaction_id, position, image_id, caption FROM transaction_images "
        "ORDER BY transaction_id, position"
    )
    for transaction_id, position, image_id, caption in rows:
        grouped.setdefault(transaction_id, []).append([position, image_id, caption])
    return {
        key: json.dumps(images, ensure_ascii=False, separators=(",", ":"))
        for key, images in grouped.items()
    }


# Read-only extras of a kind: name -> the values of every row, by the row's local id.
EXTRAS: dict[str, Callable[[Any], dict[Any, str]]] = {"images": _transaction_images}
EXTRA_DEFAULT = "[]"  # a row the extra has nothing for

KINDS: tuple[Kind, ...] = (
    Kind("person", "people", key=("name",), unify=True),
    Kind(
        "attribute", "attribute_vocab", key=("name",), time="changed_at", editable=True, unify=True
    ),
    Kind("pair", "pairs", key=("source", "external_key")),
    Kind(
        "transaction", "transactions", key=("dataset", "external_key"), extra=("images",)
    ),
    Kind(
        "transaction_turn",
        "transaction_turns",
        key=("transaction_id", "turn_index"),
        time="changed_at",
        editable=True,
        unify=True,
    ),
    Kind("caption", "captions", time="updated_at", editable=True),
    Kind(
        "label",
        "image_attributes",
        key=("image_id", "attribute_id", "source", "model"),
        time="updated_at",
        editable=True,
        unify=True,
    ),
    Kind(
        "rating_assignment",
        "rating_assignments",
        key=("sample", "transaction_id", "turn_index", "rater_id"),
        time="changed_at",
        editable=True,
    ),
    # Outfits (issue #25): the ontology by its natural key, pictures by image, regions by
    # uid (garments before the parts that point at them), labels by their natural key.
    Kind("outfit_ontology", "outfit_ontology", key=("key",), unify=True),
    Kind(
        "outfit_picture", "outfit_pictures", key=("image_id",), time="updated_at",
        editable=True, unify=True,
    ),
    Kind(
        "outfit_region", "outfit_regions", time="updated_at", editable=True,
        order="t.garment_id IS NOT NULL, t.id",
    ),
    Kind(
        "outfit_label", "outfit_region_attributes",
        key=("region_id", "attribute_id", "source", "model"), time="updated_at",
        editable=True, unify=True,
    ),
    Kind(
        "outfit_value", "outfit_attributes", key=("image_id", "value_id", "source", "model"),
        time="updated_at", editable=True, unify=True,
    ),
    Kind("rating", "ratings", key=("assignment_id",), time="updated_at", editable=True, unify=True),
    Kind("session", "retrieval_sessions"),
    Kind("session_turn", "session_turns", key=("session_id", "turn_index"), unify=True),
    Kind("audit", "audit_log"),
)
KIND_BY_NAME = {kind.name: kind for kind in KINDS}
SNAPSHOT_KINDS = tuple(kind for kind in KINDS if kind.name != "audit")


@dataclass(frozen=True)
class Record:
    uid: str
    origin: str | None
    content: dict[str, Any]

    def key(self, kind: Kind) -> tuple[Any, ...] | None:
        return tuple(self.content[f] for f in kind.key) if kind.key else None

    @property
    def hash(self) -> str:
        return content_hash(self.content)

    def time(self, kind: Kind) -> str:
        return str(self.content.get(kind.time) or "") if kind.time else ""


def content_hash(content: dict[str, Any]) -> str:
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def primary_key(source: Source, table: str) -> list[str]:
    """The table's primary-key columns, in key order."""
    columns = [(place, name) for name, place in table_columns(connection(source), table) if place]
    return [name for _, name in sorted(columns)]


def read(source: Source, kind: Kind) -> Iterator[Record]:
    """Every record of ``kind`` in ``source``, in the order the rows were made (their key)."""
    conn = connection(source)
    fields = kind.fields(conn)
    names = [f.name for f in fields]
    columns = ", ".join(["t.id" if kind.extra else "NULL"] + [f.select() for f in fields])
    extras = {name: EXTRAS[name](conn) for name in kind.extra}
    order = kind.order or (
        ", ".join(f't."{column}"' for column in primary_key(conn, kind.table)) or "t.uid"
    )
    cursor = conn.execute(
        f'SELECT t.uid, t.origin_copy, {columns} FROM "{kind.table}" t ORDER BY {order}'
    )
    for row in cursor:
        content = dict(zip(names, row[3:], strict=True))
        for name, values in extras.items():
            content[name] = values.get(row[2], EXTRA_DEFAULT)
        yield Record(row[0], row[1], content)


def dump(source: Source, with_audit: bool = False) -> dict[str, dict[str, Any]]:
    """The user data of a project: per kind, uid -> content (no local ids, no merge times).

    Audit rows the merge itself writes (``team.*`` actions) are left out: they record when
    a merge ran, which differs between two orders of merging the same packages.
    """
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        if kind.name == "audit" and not with_audit:
            continue
        rows = {}
        for record in read(source, kind):
            if kind.name == "audit":
                if str(record.content["action"]).startswith("team."):
                    continue
                record.content.pop("entity_id")
            rows[record.uid] = record.content
        out[kind.name] = rows
    return out


def snapshot(source: Source) -> Iterator[tuple[str, str, str]]:
    """(uid, kind, hash) of every mergeable record: a package's base at packing time."""
    for kind in SNAPSHOT_KINDS:
        for record in read(source, kind):
            yield record.uid, kind.name, record.hash
