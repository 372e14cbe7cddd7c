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

Audit rows the person made come along with their original author and time. The merge of
one package is one ``project.change`` (one transaction, its ``team.merge`` audit row, every
kind of project event after the commit): killed midway, nothing is half merged, and
running it again completes it. Merging the same package twice adds nothing: the
project keeps, per package, the version of each record it took (``team_merged``), and a
later merge of that package compares against it rather than against the snapshot.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import ProjectError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.database import utc_now
from studio.store.errors import RecordRejected, StatementFailed
from studio.store.package_file import PackageFile
from studio.store.repos import people as people_repo
from studio.store.repos import team as team_repo
from studio.store.repos import team_merge as merge_repo
from studio.team.records import GLOBAL_KEY, KINDS, Field, Kind, Record, content_hash, read
from studio.wording import count

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


def open_package(path: Path, scratch: Path) -> PackageFile:
    """A private copy of a package, refusing anything that is not one (see ``PackageFile``)."""
    return PackageFile.open(Path(path), scratch)


def check_package(project: Project, package: PackageFile, path: Path) -> None:
    if project.get_meta("team.package_id"):
        raise ProjectError(
            f"{project.path} is itself a work package; merge into the coordinator's project."
        )
    meta = package.meta()
    if meta.get("project_id") != project.get_meta("project_id"):
        raise ProjectError(
            f"{path} was packed from another project ({meta.get('name', '?')}), "
            f"not from {project.name}; nothing was merged."
        )
    version = package.schema_version()
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
    packages: list[PackageFile] = []
    scratch = tempfile.TemporaryDirectory(prefix="cir-merge-")
    try:
        for path in paths:
            package = open_package(Path(path), Path(scratch.name))
            packages.append(package)
            check_package(project, package, Path(path))
        reports = []
        total = len(packages) * len(KINDS)
        for number, (path, package) in enumerate(zip(paths, packages, strict=True)):

            def step(done: int, message: str, number: int = number) -> None:
                progress(number * len(KINDS) + done, total, message)

            reports.append(_merge_one(project, package, Path(path), actor, step, cancel))
        progress(total, total, "merged")
        return reports
    finally:
        for package in packages:
            package.close()
        scratch.cleanup()


def _merge_one(
    project: Project,
    package: PackageFile,
    path: Path,
    actor: str,
    step: Any,
    cancel: CancelToken | None,
) -> MergeReport:
    meta = package.meta()
    report = MergeReport(meta["team.package_id"], meta.get("team.person", "?"))
    base = package.base()
    try:
        # every kind of record may come back: the change announces every kind
        with project.change(
            actor, "team.merge", "team_package", report.package_id, whole=True
        ) as change:
            # versions an earlier merge of this same package already brought in: against
            # them, not the packing snapshot, is "changed since" judged on a second merge
            # (else a caption the coordinator reviewed in between would look like a conflict)
            merged = merge_repo.merged_versions(project, report.package_id)
            for done, kind in enumerate(KINDS):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                step(done, f"merging {kind.table} from {path.name}")
                merger = _Merger(project, kind, report, base.get(kind.name, {}), merged)
                merger.merge(list(read(package, kind)))
            if _record_return(project, report, meta, path):
                change["after"] = report.to_json()
            else:
                change["nothing_changed"] = True  # merged before: no audit row, no event
    except (RecordRejected, StatementFailed) as error:
        raise ProjectError(f"Merging {path} failed ({error}); nothing of it was merged.") from error
    return report


def _record_return(project: Project, report: MergeReport, meta: dict[str, str], path: Path) -> bool:
    """Note the package's return; True when this merge deserves its audit row (it changed
    something, or it is the package's first return)."""
    now = utc_now()
    known, returned_at = team_repo.package_returned_at(project, report.package_id)
    if not known:
        person = people_repo.find_person(project, report.person)
        if person is not None:
            team_repo.add_package(
                project,
                report.package_id,
                person.id,
                str(path),
                meta.get("team.packed_at", now),
                meta.get("team.handed_out", "{}"),
            )
            known = True
    first = known and returned_at is None
    if report.changes or first:
        team_repo.note_package_return(project, report.package_id, now, json.dumps(report.to_json()))
        return True
    return False


class _Merger:
    """Merges one kind of record of one package into the open transaction."""

    def __init__(
        self,
        project: Project,
        kind: Kind,
        report: MergeReport,
        base: dict[str, str],
        merged: dict[str, str],
    ) -> None:
        self.project, self.kind, self.report, self.base = project, kind, report, base
        self.merged = merged
        self.unplaced_uids: set[str] = set()
        self.local: dict[str, Record] = {}
        self.by_key: dict[tuple[Any, ...], Record] = {}
        self._ref_cache: dict[tuple[str, Any], Any] = {}
        self.fields = kind.fields(project)
        if kind.name == "audit":
            self.known = merge_repo.known_audit_uids(project)
            return
        for record in read(project, kind):
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
                merge_repo.mark_merged(
                    self.project, self.report.package_id, record.uid, record.hash
                )
        if self.kind.editable:
            base_uids = [uid for uid, h in self.base.items() if uid not in seen]
            for uid in base_uids:
                local = self.local.get(uid)
                if local is not None and local.hash == self.base[uid]:
                    merge_repo.delete_record(self.project, self.kind.table, uid)
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
        if merge_repo.add_conflict(
            self.project,
            uid,
            f"merge of {self.report.person}'s package",
            kind.table,
            local.uid,
            loser.content,
            content,
        ):
            self.report.conflicts.append(
                {"kind": kind.name, "uid": local.uid, "kept": content, "lost": loser.content}
            )

    def _unify(self, local: Record, record: Record) -> None:
        """One record made in two copies: keep the smaller uid, whatever the merge order."""
        if self.kind.unify and record.uid < local.uid and record.uid not in self.local:
            merge_repo.rename_uid(self.project, self.kind.table, local.uid, record.uid)

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
        found = merge_repo.parent_id(
            self.project, field.parent, field.parent_column, GLOBAL_KEY[field.parent], value
        )
        if found is None:
            return None
        self._ref_cache[(field.parent, value)] = found
        return found

    def _insert(self, record: Record) -> None:
        values = self._values(record.content)
        if values is None:
            self._unplaced(record.uid, record.content, "what it refers to is not in the project")
            return
        try:
            merge_repo.insert_record(
                self.project, self.kind.table, record.uid, record.origin, values
            )
        except RecordRejected as error:
            self._unplaced(record.uid, record.content, str(error))
            return
        if self.kind.name == "transaction":
            images = json.loads(record.content["images"] or "[]")
            merge_repo.add_transaction_images(self.project, record.uid, images)
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
        try:
            merge_repo.update_record(self.project, self.kind.table, local.uid, values)
        except RecordRejected as error:
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
        merge_repo.add_audit_copy(self.project, record.uid, record.origin, record.content)
        self._count(self.report.added)


def _back_to_review(record: Record) -> dict[str, Any]:
    content = dict(record.content)
    if content.get("status") != "draft":
        content.update(status="submitted", **REVIEW_FIELDS)
    return content
