"""Bring work packages back into the project: idempotent, order-independent, lossless.

For every record of a package (see ``records.KINDS``, merged parents first):

- unchanged since packing (its hash equals the package's ``team_base`` entry): skipped;
- new, or changed only in the package: written to the project;
- changed in the package *and* in the project since packing (or made in both under the
  same natural key): a **conflict**. The later edit wins (the record's edit time; on a
  tie the larger content hash), so the result does not depend on the order packages are
  merged in. The losing version goes into the audit log (action ``team.conflict``,
  ``before`` = loser, ``after`` = winner) and into the merge report. A conflicting
  caption goes back to the review queue (status ``submitted``, review cleared);
- in the base but gone from the package (a person removed their own label): removed
  from the project unless the project changed it since packing (an edit beats a delete).

Audit rows the person made come along with their original author and time. The whole
merge is one ``BEGIN IMMEDIATE`` transaction: killed midway, nothing is half merged, and
running it again completes it. Merging the same package twice adds nothing: the
project keeps, per package, the version of each record it took (``team_merged``), and a
later merge of that package compares against it rather than against the snapshot.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import ProjectError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.project_events import KINDS as EVENT_KINDS
from studio.store import Project
from studio.store.database import utc_now
from studio.team.records import GLOBAL_KEY, KINDS, Field, Kind, Record, content_hash, read
from studio.wording import count

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
REVIEW_FIELDS = {"reviewer_id": None, "reviewed_at": None, "reject_reason": None}


@dataclass
class MergeReport:
    package_id: str
    person: str
    added: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    unplaced: list[dict[str, Any]] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return (
            sum(self.added.values())
            + sum(self.updated.values())
            + sum(self.removed.values())
            + len(self.conflicts)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package_id,
            "person": self.person,
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "conflicts": self.conflicts,
            "unplaced": self.unplaced,
            "changes": self.changes,
        }

    def summary(self) -> str:
        added = ", ".join(
            count(n, NOUNS.get(table, table))
            for table, n in sorted(self.added.items(), key=lambda i: (i[0] == "audit_log", i[0]))
            if n
        )
        edited = sum(self.updated.values())
        text = (
            f"{self.person}'s package: {f'new {added}' if added else 'nothing new'}; "
            f"{edited} edited, {sum(self.removed.values())} removed, "
            f"{count(len(self.conflicts), 'conflict')}"
        )
        if self.unplaced:
            text += f", {count(len(self.unplaced), 'record')} could not be placed"
        return text


NOUNS = {
    "audit_log": "audit row",
    "people": "person",
    "attribute_vocab": "attribute",
    "image_attributes": "label",
    "retrieval_sessions": "session",
    "session_turns": "session turn",
    "transaction_turns": "transaction turn",
    "rating_assignments": "rating item",
    "captions": "caption",
    "ratings": "rating",
    "pairs": "pair",
    "transactions": "transaction",
}


def open_package(path: Path, scratch: Path) -> sqlite3.Connection:
    """A connection to a private copy of a package, refusing anything that is not one.

    The copy (with its ``-wal`` file, if the person's studio left one: their last edits
    may still be there) lives in ``scratch``, so a package on a read-only stick or share
    merges, and opening it replays its WAL without touching the person's file.
    """
    path = Path(path)
    if not path.is_file():
        raise ProjectError(f"No work package at {path}: the file does not exist.")
    copy = scratch / f"{len(list(scratch.iterdir()))}.cirdb"
    try:
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
    except OSError as error:
        raise ProjectError(f"Cannot read the work package {path} ({error}).") from error
    conn = sqlite3.connect(str(copy))
    try:
        package_id = conn.execute("SELECT value FROM meta WHERE key = 'team.package_id'").fetchone()
    except sqlite3.DatabaseError as error:
        conn.close()
        raise ProjectError(f"{path} is not a CIR Studio work package ({error}).") from error
    if package_id is None:
        conn.close()
        raise ProjectError(f"{path} is a project, not a work package (it has no package id).")
    return conn


def check_package(project: Project, conn: sqlite3.Connection, path: Path) -> None:
    if project.get_meta("team.package_id"):
        raise ProjectError(
            f"{project.path} is itself a work package; merge into the coordinator's project."
        )
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("project_id") != project.get_meta("project_id"):
        raise ProjectError(
            f"{path} was packed from another project ({meta.get('name', '?')}), "
            f"not from {project.name}; nothing was merged."
        )
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > project.schema_version:
        raise ProjectError(
            f"{path} was written by a newer CIR Studio (schema {version}; this project is at "
            f"{project.schema_version}). Update CIR Studio to merge it; nothing was merged."
        )
    if version < project.schema_version:
        raise ProjectError(
            f"{path} has an older schema ({version}); open it once in this CIR Studio to "
            "upgrade it, then merge again. Nothing was merged."
        )


def merge_packages(
    project: Project,
    paths: Sequence[Path],
    actor: str,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> list[MergeReport]:
    """Merge each package in its own transaction; all are checked before any is merged."""
    conns = []
    scratch = tempfile.TemporaryDirectory(prefix="cir-merge-")
    try:
        for path in paths:
            conn = open_package(Path(path), Path(scratch.name))
            conns.append(conn)
            check_package(project, conn, Path(path))
        reports = []
        total = len(conns) * len(KINDS)
        for number, (path, conn) in enumerate(zip(paths, conns, strict=True)):

            def step(done: int, message: str, number: int = number) -> None:
                progress(number * len(KINDS) + done, total, message)

            reports.append(_merge_one(project, conn, Path(path), actor, step, cancel))
        progress(total, total, "merged")
        return reports
    finally:
        for conn in conns:
            conn.close()
        scratch.cleanup()


def _merge_one(
    project: Project,
    package: sqlite3.Connection,
    path: Path,
    actor: str,
    step: Any,
    cancel: CancelToken | None,
) -> MergeReport:
    meta = dict(package.execute("SELECT key, value FROM meta").fetchall())
    report = MergeReport(meta["team.package_id"], meta.get("team.person", "?"))
    base: dict[str, dict[str, str]] = {}
    for uid, kind_name, digest in package.execute("SELECT uid, kind, hash FROM team_base"):
        base.setdefault(kind_name, {})[uid] = digest
    conn = project.db.conn
    # versions an earlier merge of this same package already brought in: against them, not
    # the packing snapshot, is "changed since" judged on a second merge (else a caption the
    # coordinator reviewed in between would look like a conflict)
    merged = dict(
        conn.execute(
            "SELECT uid, hash FROM team_merged WHERE package_id = ?", [report.package_id]
        ).fetchall()
    )
    try:
        conn.execute("BEGIN IMMEDIATE")  # the write lock at once (waits out a busy writer)
    except sqlite3.OperationalError as error:
        raise ProjectError(f"{project.path} is busy ({error}); merge again in a moment.") from error
    try:
        for done, kind in enumerate(KINDS):
            if cancel is not None:
                cancel.raise_if_cancelled()
            step(done, f"merging {kind.table} from {path.name}")
            merger = _Merger(conn, kind, report, base.get(kind.name, {}), merged)
            merger.merge(list(read(package, kind)))
        _record_merge(conn, report, meta, path, actor)
        conn.execute("COMMIT")
        project.announce(*EVENT_KINDS)  # a merge may bring back any kind of record
    except sqlite3.DatabaseError as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise ProjectError(f"Merging {path} failed ({error}); nothing of it was merged.") from error
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return report


def _record_merge(
    conn: sqlite3.Connection, report: MergeReport, meta: dict[str, str], path: Path, actor: str
) -> None:
    now = utc_now()
    row = conn.execute(
        "SELECT returned_at FROM team_packages WHERE package_id = ?", [report.package_id]
    ).fetchone()
    if row is None:
        person = conn.execute("SELECT id FROM people WHERE name = ?", [report.person]).fetchone()
        if person is not None:
            conn.execute(
                "INSERT INTO team_packages (package_id, person_id, path, created_at, handed_out) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    report.package_id,
                    person[0],
                    str(path),
                    meta.get("team.packed_at", now),
                    meta.get("team.handed_out", "{}"),
                ],
            )
            row = (None,)
    first = row is not None and row[0] is None
    if report.changes or first:
        conn.execute(
            "UPDATE team_packages SET returned_at = ?, merges = merges + 1, last_report = ? "
            "WHERE package_id = ?",
            [now, json.dumps(report.to_json()), report.package_id],
        )
        conn.execute(
            "INSERT INTO audit_log (at, actor, action, entity, entity_id, after) "
            "VALUES (?, ?, 'team.merge', 'team_package', ?, ?)",
            [now, actor, report.package_id, json.dumps(report.to_json(), sort_keys=True)],
        )


class _Merger:
    """Merges one kind of record of one package into the open transaction."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        kind: Kind,
        report: MergeReport,
        base: dict[str, str],
        merged: dict[str, str],
    ) -> None:
        self.conn, self.kind, self.report, self.base = conn, kind, report, base
        self.merged = merged
        self.unplaced_uids: set[str] = set()
        self.local: dict[str, Record] = {}
        self.by_key: dict[tuple[Any, ...], Record] = {}
        self._ref_cache: dict[tuple[str, Any], Any] = {}
        self.fields = kind.fields(conn)
        if kind.name == "audit":
            self.known = {row[0] for row in conn.execute("SELECT uid FROM audit_log")}
            return
        for record in read(conn, kind):
            self.local[record.uid] = record
            key = record.key(kind)
            if key is not None:
                self.by_key[key] = record

    def _count(self, bucket: dict[str, int]) -> None:
        bucket[self.kind.table] = bucket.get(self.kind.table, 0) + 1

    def merge(self, records: list[Record]) -> None:
        if self.kind.name == "audit":
            for record in records:
                if record.uid not in self.known:
                    self._insert_audit(record)
            return
        seen = set()
        for record in records:
            seen.add(record.uid)
            if self.base.get(record.uid) == record.hash:
                continue  # the person did not change it
            if self.merged.get(record.uid) == record.hash:
                continue  # an earlier merge of this package brought this version in
            self._merge_record(record)
            if record.uid not in self.unplaced_uids:
                self.conn.execute(
                    "INSERT OR REPLACE INTO team_merged (package_id, uid, hash) VALUES (?, ?, ?)",
                    [self.report.package_id, record.uid, record.hash],
                )
        if self.kind.editable:
            base_uids = [uid for uid, h in self.base.items() if uid not in seen]
            for uid in base_uids:
                local = self.local.get(uid)
                if local is not None and local.hash == self.base[uid]:
                    self.conn.execute(f"DELETE FROM {self.kind.table} WHERE uid = ?", [uid])
                    self._count(self.report.removed)

    def _merge_record(self, record: Record) -> None:
        kind = self.kind
        base = self.merged.get(record.uid) or self.base.get(record.uid)
        local = self.local.get(record.uid)
        key = record.key(kind)
        if local is None and key is not None:
            local = self.by_key.get(key)
        if local is None:
            self._insert(record)
            return
        same = local.hash == record.hash or (
            kind.name == "caption" and local.hash == content_hash(_back_to_review(record))
        )
        if same:
            self._unify(local, record)
            return
        if base is not None and local.hash == base:
            self._update(local, record.content)
            self._count(self.report.updated)
            return
        self._conflict(local, record)

    def _conflict(self, local: Record, record: Record) -> None:
        kind = self.kind
        ordered = sorted([local, record], key=lambda r: (r.time(kind), r.hash))
        loser, winner = ordered
        content = dict(winner.content)
        if kind.name == "caption":
            content = _back_to_review(winner)
        if content_hash(content) != local.hash:
            self._update(local, content)
        self._unify(local, record)
        # A losing version is recorded once, however often (and in whatever order) the
        # packages are merged: its row's uid derives from the record and the version.
        lost = _back_to_review(loser) if kind.name == "caption" else loser.content
        uid = hashlib.sha1(f"{local.uid}:{content_hash(lost)}".encode()).hexdigest()[:32]
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO audit_log (uid, origin_copy, at, actor, action, entity, "
            "entity_id, entity_uid, before, after) VALUES (?, ?, ?, ?, 'team.conflict', ?, ?, "
            "?, ?, ?)",
            [
                uid,
                self._origin(),
                utc_now(),
                f"merge of {self.report.person}'s package",
                kind.table,
                self._local_id(local.uid),
                local.uid,
                json.dumps(loser.content, sort_keys=True, default=str),
                json.dumps(content, sort_keys=True, default=str),
            ],
        )
        if cursor.rowcount == 1:
            self.report.conflicts.append(
                {"kind": kind.name, "uid": local.uid, "kept": content, "lost": loser.content}
            )

    def _origin(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'origin_id'").fetchone()
        return None if row is None else str(row[0])

    def _local_id(self, uid: str) -> str | None:
        row = self.conn.execute(
            f"SELECT rowid FROM {self.kind.table} WHERE uid = ?", [uid]
        ).fetchone()
        return None if row is None else str(row[0])

    def _unify(self, local: Record, record: Record) -> None:
        """One record made in two copies: keep the smaller uid, whatever the merge order."""
        if self.kind.unify and record.uid < local.uid and record.uid not in self.local:
            self.conn.execute(
                f"UPDATE {self.kind.table} SET uid = ? WHERE uid = ?", [record.uid, local.uid]
            )

    def _values(self, content: dict[str, Any]) -> dict[str, Any] | None:
        """Content as local column values, or None when a referenced record is missing."""
        values: dict[str, Any] = {}
        for column in self.fields:
            if column.name not in content:
                continue
            value = content[column.name]
            if column.parent is not None and value is not None:
                value = self._resolve(column, value)
                if value is None:
                    return None
            values[column.name] = value
        return values

    def _resolve(self, field: Field, value: Any) -> Any:
        """The local id of the parent row named ``value`` (a name, uid or image id)."""
        assert field.parent is not None
        cached = self._ref_cache.get((field.parent, value))
        if cached is not None:
            return cached
        key = GLOBAL_KEY[field.parent]
        row = self.conn.execute(
            f'SELECT "{field.parent_column}" FROM "{field.parent}" WHERE "{key}" = ?', [value]
        ).fetchone()
        if row is None:
            return None
        self._ref_cache[(field.parent, value)] = row[0]
        return row[0]

    def _insert(self, record: Record) -> None:
        values = self._values(record.content)
        if values is None:
            self._unplaced(record.uid, record.content, "what it refers to is not in the project")
            return
        columns = ["uid", "origin_copy", *values]
        marks = ", ".join("?" * len(columns))
        try:
            cursor = self.conn.execute(
                f"INSERT INTO {self.kind.table} ({', '.join(columns)}) VALUES ({marks})",
                [record.uid, record.origin, *values.values()],
            )
        except sqlite3.IntegrityError as error:
            self._unplaced(record.uid, record.content, str(error))
            return
        if self.kind.name == "transaction":
            images = json.loads(record.content["images"] or "[]")
            self.conn.executemany(
                "INSERT INTO transaction_images (transaction_id, position, image_id, caption) "
                "VALUES (?, ?, ?, ?)",
                [(cursor.lastrowid, *image) for image in images],
            )
        self.local[record.uid] = record
        key = record.key(self.kind)
        if key is not None:
            self.by_key[key] = record
        self._count(self.report.added)

    def _update(self, local: Record, content: dict[str, Any]) -> None:
        values = self._values(content)
        if values is None:
            self._unplaced(local.uid, content, "what it refers to is not in the project")
            return
        sets = ", ".join(f'"{column}" = ?' for column in values)
        try:
            self.conn.execute(
                f"UPDATE {self.kind.table} SET {sets} WHERE uid = ?", [*values.values(), local.uid]
            )
        except sqlite3.IntegrityError as error:
            self._unplaced(local.uid, content, str(error))
            return
        self.local[local.uid] = Record(local.uid, local.origin, content)

    def _unplaced(self, uid: str, content: dict[str, Any], reason: str) -> None:
        """A rule of this project the record breaks here (e.g. a second draft of the same
        person on a pair): reported with its content, never silently dropped."""
        self.unplaced_uids.add(uid)
        self.report.unplaced.append(
            {"kind": self.kind.name, "uid": uid, "content": content, "reason": reason}
        )

    def _insert_audit(self, record: Record) -> None:
        content = dict(record.content)
        target = AUDIT_TARGETS.get(str(content["entity"]))
        if target is not None and content["entity_uid"]:
            table, expression = target
            row = self.conn.execute(
                f"SELECT {expression} FROM {table} WHERE uid = ?", [content["entity_uid"]]
            ).fetchone()
            content["entity_id"] = None if row is None else str(row[0])
        columns = ["uid", "origin_copy", *content]
        marks = ", ".join("?" * len(columns))
        self.conn.execute(
            f"INSERT INTO audit_log ({', '.join(columns)}) VALUES ({marks})",
            [record.uid, record.origin, *content.values()],
        )
        self._count(self.report.added)


def _back_to_review(record: Record) -> dict[str, Any]:
    content = dict(record.content)
    if content.get("status") != "draft":
        content.update(status="submitted", **REVIEW_FIELDS)
    return content
