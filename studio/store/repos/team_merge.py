"""The writes of a team merge, run inside its ``project.change(...)`` transaction.

``studio.team.merge`` decides what happens to each record of a package (skip, insert,
update, conflict, remove); these functions do it to the project's tables. Records are
addressed by uid and by table name taken from ``team_records.KINDS`` (never from input).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from studio.store import binds
from studio.store.database import utc_now
from studio.store.project import Project

# audit_log.entity -> (table, SQL expression giving the entity_id text) to re-point rows
AUDIT_TARGETS = {
    "caption": ("captions", "id"),
    "pair": ("pairs", "id"),
    "rating": ("rating_assignments", "id"),
    "rating_assignment": ("rating_assignments", "id"),
    "retrieval_session": ("retrieval_sessions", "id"),
    "attribute_vocab": ("attribute_vocab", "id"),
    "transaction_turn": ("transaction_turns", "transaction_id || ':' || turn_index"),
}
# table -> the expression that names a row in this copy (its local id), for audit rows
LOCAL_IDS = {
    "ratings": "assignment_id",
    "transaction_turns": "transaction_id || ':' || turn_index",
}


def merged_versions(project: Project, package_id: str) -> dict[str, str]:
    """uid -> hash of each record an earlier merge of this package brought in."""
    rows = project.db.execute(
        "SELECT uid, hash FROM team_merged WHERE package_id = :package_id ORDER BY uid", {
            "package_id": package_id,
        }
    )
    return {str(uid): str(digest) for uid, digest in rows}


def mark_merged(project: Project, package_id: str, uid: str, digest: str) -> None:
    project.db.execute(
        "INSERT INTO team_merged (package_id, uid, hash) VALUES (:package_id, :uid, :digest) "
        "ON CONFLICT (package_id, uid) DO UPDATE SET hash = excluded.hash",
        {"package_id": package_id, "uid": uid, "digest": digest},
    )


def known_audit_uids(project: Project) -> set[str]:
    return {str(row[0]) for row in project.db.execute("SELECT uid FROM audit_log")}


def local_id(project: Project, table: str, uid: str) -> str | None:
    """The row's id in this copy, as audit rows name it."""
    expression = LOCAL_IDS.get(table, "id")
    row = project.db.execute(f"SELECT {expression} FROM {table} WHERE uid = :uid", {
        "uid": uid,
    }).fetchone()
    return None if row is None else str(row[0])


def parent_id(project: Project, parent: str, column: str, key: str, value: Any) -> Any:
    """The local ``column`` of the ``parent`` row whose global ``key`` is ``value``."""
    row = project.db.execute(
        f'SELECT "{column}" FROM "{parent}" WHERE "{key}" = :value', {"value": value}
    ).fetchone()
    return None if row is None else row[0]


def insert_record(
    project: Project, table: str, uid: str, origin: str | None, values: Mapping[str, Any]
) -> None:
    """Insert one record; a rule of the project it breaks raises ``RecordRejected``."""
    columns = ["uid", "origin_copy", *values]
    quoted = ", ".join(f'"{column}"' for column in columns)
    _guarded(
        project,
        f'INSERT INTO "{table}" ({quoted}) VALUES ({binds.marks(columns)})',
        {**values, "uid": uid, "origin_copy": origin},
    )


def update_record(project: Project, table: str, uid: str, values: Mapping[str, Any]) -> None:
    """Set ``values`` on the record; a rule it breaks raises ``RecordRejected``."""
    if not values:
        return
    sets = ", ".join(f'"{column}" = :{column}' for column in values)
    _guarded(
        project, f'UPDATE "{table}" SET {sets} WHERE uid = :record_uid',
        {**values, "record_uid": uid},
    )


def _guarded(project: Project, sql: str, params: Mapping[str, Any]) -> None:
    """Run one statement in a savepoint, so a refused row leaves the transaction usable
    (PostgreSQL aborts the whole transaction otherwise)."""
    with project.db.atomic():  # nested: a savepoint
        project.db.execute(sql, params)


def add_transaction_images(
    project: Project, transaction_uid: str, images: Sequence[Sequence[Any]]
) -> None:
    """The (position, image id, caption) rows of a transaction just inserted."""
    row = project.db.execute("SELECT id FROM transactions WHERE uid = :transaction_uid", {
        "transaction_uid": transaction_uid,
    })
    transaction_id = row.fetchone()[0]
    project.db.conn.executemany(
        "INSERT INTO transaction_images (transaction_id, position, image_id, caption) "
        "VALUES (:transaction_id, :position, :image_id, :caption)",
        [
            {"transaction_id": transaction_id, **binds.row(("position", "image_id", "caption"), image)}
            for image in images
        ],
    )


def delete_record(project: Project, table: str, uid: str) -> None:
    project.db.execute(f'DELETE FROM "{table}" WHERE uid = :uid', {"uid": uid})


def rename_uid(project: Project, table: str, old: str, new: str) -> None:
    project.db.execute(f'UPDATE "{table}" SET uid = :new WHERE uid = :old', {"new": new, "old": old})


def add_conflict(
    project: Project,
    uid: str,
    actor: str,
    table: str,
    record_uid: str,
    lost: Any,
    kept: Any,
) -> bool:
    """Record a losing version in the audit log once (``uid`` derives from it); True if new."""
    cursor = project.db.execute(
        "INSERT INTO audit_log (uid, origin_copy, at, actor, action, entity, entity_id, "
        "entity_uid, before, after) VALUES (:uid, :origin_copy, :at, :actor, 'team.conflict', :table, :entity_id, :record_uid, "
        ":before, :after) "
        "ON CONFLICT (uid) DO NOTHING",
        {
            "uid": uid,
            "origin_copy": project.get_meta("origin_id"),
            "at": utc_now(),
            "actor": actor,
            "table": table,
            "entity_id": local_id(project, table, record_uid),
            "record_uid": record_uid,
            "before": json.dumps(lost, sort_keys=True, default=str),
            "after": json.dumps(kept, sort_keys=True, default=str),
        },
    )
    return cursor.rowcount == 1


def add_audit_copy(
    project: Project, uid: str, origin: str | None, content: Mapping[str, Any]
) -> None:
    """An audit row made in another copy, re-pointed at this copy's local id."""
    content = dict(content)
    target = AUDIT_TARGETS.get(str(content.get("entity")))
    if target is not None and content.get("entity_uid"):
        table, expression = target
        row = project.db.execute(
            f"SELECT {expression} FROM {table} WHERE uid = :entity_uid", {"entity_uid": content["entity_uid"]}
        ).fetchone()
        content["entity_id"] = None if row is None else str(row[0])
    columns = ["uid", "origin_copy", *content]
    quoted = ", ".join(f'"{column}"' for column in columns)
    project.db.execute(
        f"INSERT INTO audit_log ({quoted}) VALUES ({binds.marks(columns)})",
        {**content, "uid": uid, "origin_copy": origin},
    )
