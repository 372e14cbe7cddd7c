"""Records as every copy of a project sees them: keyed by uid, refs by global names.

A row's *content* is what a person made, with every local integer id replaced by
something the same in every copy (a person's name, a pair's uid, an attribute's name, an
image id). Two copies hold the same version of a record exactly when their contents hash
alike, which is how a work package's snapshot (``team_base``) tells the merge what
changed since packing. ``dump`` of all kinds is the project's user data, independent of
local ids: the tests compare projects with it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Ref = tuple[str, str, str]  # (content field, local column, "table.global_column")


@dataclass(frozen=True)
class Kind:
    """One mergeable table: how to read it globally and write it back locally."""

    name: str
    table: str
    select: str  # SELECT uid, origin_copy, <fields...>; refs already translated
    fields: tuple[str, ...]
    key: tuple[str, ...] = ()  # natural key fields (a second way to find the same record)
    time: str | None = None  # the field holding the last edit time
    editable: bool = False  # rows change after insert (else insert-only)
    refs: tuple[Ref, ...] = ()
    unify: bool = False  # same key, two uids: keep the smaller uid (nothing refers to it)
    columns: dict[str, str] = field(default_factory=dict)  # field -> column if renamed

    def column(self, name: str) -> str:
        for ref_field, column, _ in self.refs:
            if ref_field == name:
                return column
        return self.columns.get(name, name)


_PEOPLE = "LEFT JOIN people {a} ON {a}.id = {t}.{c}"


def _join(alias: str, table: str, column: str) -> str:
    return _PEOPLE.format(a=alias, t=table, c=column)


KINDS: tuple[Kind, ...] = (
    Kind(
        "person",
        "people",
        "SELECT uid, origin_copy, name, role, created_at FROM people",
        ("name", "role", "created_at"),
        key=("name",),
        unify=True,
    ),
    Kind(
        "attribute",
        "attribute_vocab",
        "SELECT uid, origin_copy, name, type, synonyms, created_at, changed_at "
        "FROM attribute_vocab",
        ("name", "type", "synonyms", "created_at", "changed_at"),
        key=("name",),
        time="changed_at",
        editable=True,
        unify=True,
    ),
    Kind(
        "pair",
        "pairs",
        "SELECT uid, origin_copy, reference_id, target_id, category, split, method, score, "
        "source, external_key, extra, created_at FROM pairs",
        (
            "reference_id",
            "target_id",
            "category",
            "split",
            "method",
            "score",
            "source",
            "external_key",
            "extra",
            "created_at",
        ),
        key=("source", "external_key"),
        refs=(
            ("reference_id", "reference_id", "images.id"),
            ("target_id", "target_id", "images.id"),
        ),
    ),
    Kind(
        "transaction",
        "transactions",
        "SELECT t.uid, t.origin_copy, t.dataset, t.external_key, t.category, t.origin, "
        "t.created_at, (SELECT json_group_array(json_array(position, image_id, caption)) "
        "FROM (SELECT * FROM transaction_images i WHERE i.transaction_id = t.id "
        "ORDER BY position)) AS images FROM transactions t",
        ("dataset", "external_key", "category", "origin", "created_at", "images"),
        key=("dataset", "external_key"),
    ),
    Kind(
        "transaction_turn",
        "transaction_turns",
        "SELECT u.uid, u.origin_copy, t.uid AS transaction_uid, u.turn_index, "
        "u.reference_position, u.text, u.status, u.changed_at FROM transaction_turns u "
        "JOIN transactions t ON t.id = u.transaction_id",
        ("transaction_uid", "turn_index", "reference_position", "text", "status", "changed_at"),
        key=("transaction_uid", "turn_index"),
        time="changed_at",
        editable=True,
        unify=True,
        refs=(("transaction_uid", "transaction_id", "transactions.uid"),),
    ),
    Kind(
        "caption",
        "captions",
        "SELECT c.uid, c.origin_copy, p.uid AS pair_uid, c.position, c.text, a.name AS author, "
        "c.status, c.flagged, c.reject_reason, r.name AS reviewer, c.created_at, c.updated_at, "
        f"c.reviewed_at FROM captions c JOIN pairs p ON p.id = c.pair_id "
        f"{_join('a', 'c', 'author_id')} {_join('r', 'c', 'reviewer_id')}",
        (
            "pair_uid",
            "position",
            "text",
            "author",
            "status",
            "flagged",
            "reject_reason",
            "reviewer",
            "created_at",
            "updated_at",
            "reviewed_at",
        ),
        time="updated_at",
        editable=True,
        refs=(
            ("pair_uid", "pair_id", "pairs.uid"),
            ("author", "author_id", "people.name"),
            ("reviewer", "reviewer_id", "people.name"),
        ),
    ),
    Kind(
        "label",
        "image_attributes",
        "SELECT l.uid, l.origin_copy, l.image_id, v.name AS attribute, l.source, l.model, "
        "l.confidence, l.status, l.updated_at FROM image_attributes l "
        "JOIN attribute_vocab v ON v.id = l.attribute_id",
        ("image_id", "attribute", "source", "model", "confidence", "status", "updated_at"),
        key=("image_id", "attribute", "source", "model"),
        time="updated_at",
        editable=True,
        unify=True,
        refs=(
            ("image_id", "image_id", "images.id"),
            ("attribute", "attribute_id", "attribute_vocab.name"),
        ),
    ),
    Kind(
        "rating_assignment",
        "rating_assignments",
        "SELECT a.uid, a.origin_copy, a.sample, t.uid AS transaction_uid, a.turn_index, "
        "p.name AS rater, a.order_key, a.status, a.changed_at FROM rating_assignments a "
        "JOIN transactions t ON t.id = a.transaction_id JOIN people p ON p.id = a.rater_id",
        ("sample", "transaction_uid", "turn_index", "rater", "order_key", "status", "changed_at"),
        key=("sample", "transaction_uid", "turn_index", "rater"),
        time="changed_at",
        editable=True,
        refs=(
            ("transaction_uid", "transaction_id", "transactions.uid"),
            ("rater", "rater_id", "people.name"),
        ),
    ),
    Kind(
        "rating",
        "ratings",
        "SELECT r.uid, r.origin_copy, a.uid AS assignment_uid, r.accuracy, "
        "r.historical_awareness, r.granularity, r.consistency, r.coverage, r.note, "
        "r.updated_at FROM ratings r JOIN rating_assignments a ON a.id = r.assignment_id",
        (
            "assignment_uid",
            "accuracy",
            "historical_awareness",
            "granularity",
            "consistency",
            "coverage",
            "note",
            "updated_at",
        ),
        key=("assignment_uid",),
        time="updated_at",
        editable=True,
        unify=True,
        refs=(("assignment_uid", "assignment_id", "rating_assignments.uid"),),
    ),
    Kind(
        "session",
        "retrieval_sessions",
        "SELECT s.uid, s.origin_copy, s.mode, s.strategy, s.model, s.target_id, "
        f"p.name AS person, s.title, s.created_at FROM retrieval_sessions s "
        f"{_join('p', 's', 'person_id')}",
        ("mode", "strategy", "model", "target_id", "person", "title", "created_at"),
        refs=(("target_id", "target_id", "images.id"), ("person", "person_id", "people.name")),
    ),
    Kind(
        "session_turn",
        "session_turns",
        "SELECT u.uid, u.origin_copy, s.uid AS session_uid, u.turn_index, u.kind, "
        "u.reference_id, u.text, u.question, u.answer, u.results, u.target_rank, u.timings, "
        "u.created_at FROM session_turns u JOIN retrieval_sessions s ON s.id = u.session_id",
        (
            "session_uid",
            "turn_index",
            "kind",
            "reference_id",
            "text",
            "question",
            "answer",
            "results",
            "target_rank",
            "timings",
            "created_at",
        ),
        key=("session_uid", "turn_index"),
        unify=True,
        refs=(
            ("session_uid", "session_id", "retrieval_sessions.uid"),
            ("reference_id", "reference_id", "images.id"),
        ),
    ),
    Kind(
        "audit",
        "audit_log",
        "SELECT uid, origin_copy, at, actor, action, entity, entity_uid, entity_id, before, "
        "after FROM audit_log",
        ("at", "actor", "action", "entity", "entity_uid", "entity_id", "before", "after"),
    ),
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


def read(conn: sqlite3.Connection, kind: Kind) -> Iterator[Record]:
    cursor = conn.execute(kind.select)
    for row in cursor:
        yield Record(row[0], row[1], dict(zip(kind.fields, row[2:], strict=True)))


def dump(conn: sqlite3.Connection, with_audit: bool = False) -> dict[str, dict[str, Any]]:
    """The user data of a project: per kind, uid -> content (no local ids, no merge times).

    Audit rows the merge itself writes (``team.*`` actions) are left out: they record when
    a merge ran, which differs between two orders of merging the same packages.
    """
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        if kind.name == "audit" and not with_audit:
            continue
        rows = {}
        for record in read(conn, kind):
            if kind.name == "audit":
                if str(record.content["action"]).startswith("team."):
                    continue
                record.content.pop("entity_id")
            rows[record.uid] = record.content
        out[kind.name] = rows
    return out


def snapshot(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str]]:
    """(uid, kind, hash) of every mergeable record: a package's base at packing time."""
    for kind in SNAPSHOT_KINDS:
        for record in read(conn, kind):
            yield record.uid, kind.name, record.hash
