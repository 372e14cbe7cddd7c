"""A work package: a self-contained project file holding one person's work and no more.

Made from a consistent snapshot of the project (``VACUUM INTO``), then cut down to the
person's assignments: their caption and review pairs (with the captions already on them,
so the "N per pair from different people" rule still holds on their machine), their
attribute batches, and their own rating queue. Ratings stay blind: no other rater's
assignments or scores, and transactions lose their dataset name and key (their uid is
what the merge uses), images their source. Audit rows of other people go too. Finally
the file is vacuumed, so nothing deleted can be read back from its free pages.

The package records its id, the person, when it was packed, and a per-record hash of
everything it holds (``team_base``): the merge compares against that to tell what the
person changed. It is written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.database import utc_now
from studio.store.project import PROJECT_SUFFIX
from studio.team.records import snapshot

_PRUNE = (
    # other raters' queues and scores: the rating view stays blind
    "DELETE FROM ratings WHERE assignment_id IN "
    "(SELECT id FROM rating_assignments WHERE rater_id != :pid)",
    "DELETE FROM rating_assignments WHERE rater_id != :pid",
    "DELETE FROM team_assignments WHERE person_id != :pid",
    "DELETE FROM team_packages",
    "DELETE FROM team_base",
    "DELETE FROM team_merged",
    "DELETE FROM experiment_runs",
    "DELETE FROM retrieval_sessions",
    "DELETE FROM captions WHERE pair_id NOT IN (SELECT id FROM keep_pairs)",
    "DELETE FROM pairs WHERE id NOT IN (SELECT id FROM keep_pairs)",
    "DELETE FROM transactions WHERE id NOT IN (SELECT transaction_id FROM rating_assignments)",
    "UPDATE transactions SET dataset = 'blind', external_key = uid",
    "DELETE FROM image_attributes WHERE image_id NOT IN (SELECT id FROM keep_images)",
    "DELETE FROM images WHERE id NOT IN (SELECT id FROM keep_images)",
    "UPDATE images SET source = ''",
    "DELETE FROM audit_log WHERE actor != :name OR action LIKE 'team.%'",
)


@dataclass
class PackResult:
    path: Path
    package_id: str
    person: str
    handed_out: dict[str, int]
    images_copied: int = 0
    notes: list[str] = field(default_factory=list)


def default_package_path(project: Project, person: str, out: Path) -> Path:
    out = Path(out).expanduser()
    if out.is_dir():
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in person)
        stem = project.path.parent.name if project.path.stem == "project" else project.path.stem
        return out / f"{stem}-{safe}{PROJECT_SUFFIX}"
    return out if out.suffix else out.with_suffix(PROJECT_SUFFIX)


def handed_out(project: Project, person_id: int) -> dict[str, int]:
    counts = dict(
        project.db.execute(
            "SELECT kind, count(*) FROM team_assignments WHERE person_id = ? GROUP BY 1",
            [person_id],
        ).fetchall()
    )
    ratings = project.db.execute(
        "SELECT count(*) FROM rating_assignments WHERE rater_id = ?", [person_id]
    ).fetchone()[0]
    if ratings:
        counts["rating"] = ratings
    return {k: int(v) for k, v in counts.items()}


def pack(
    project: Project,
    person: str,
    out: Path,
    actor: str,
    with_images: bool = False,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    image_root: str | None = None,
) -> PackResult:
    """Write ``person``'s work package to ``out`` (a file, or a folder to put it in).

    Images: copied beside the package (``with_images``), or looked for under
    ``image_root`` as the person's machine will see it (absolute, or relative to the
    package's folder), by default this project's image root.
    """
    if with_images and image_root:
        raise StudioError("Choose either --with-images or --image-root, not both.")
    if project.get_meta("team.package_id"):
        raise StudioError(
            f"{project.path} is itself a work package; pack from the coordinator's project."
        )
    row = project.db.execute("SELECT id FROM people WHERE name = ?", [person]).fetchone()
    if row is None:
        raise StudioError(
            f"There is nobody called {person!r} in {project.name}; "
            "assign them work first (cir-studio team assign …)."
        )
    person_id = int(row[0])
    counts = handed_out(project, person_id)
    if not counts:
        raise StudioError(
            f"{person} has no assigned work in {project.name}; assign some "
            "first (cir-studio team assign …)."
        )
    path = default_package_path(project, person, out)
    if path.exists():
        raise StudioError(f"{path} already exists; choose another name or remove it first.")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    package_id = uuid.uuid4().hex
    images_dir = path.with_name(path.stem + ".images")
    copied = 0
    try:
        progress(0, 4, "copying the project")
        project.db.execute("VACUUM INTO ?", [str(partial)])
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(1, 4, f"keeping only {person}'s work")
        needed = _cut_down(project, partial, person, person_id, package_id, counts)
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(2, 4, "copying images" if with_images else "writing the package")
        root = project.image_root
        if with_images:
            copied = _copy_images(root, needed, images_dir, cancel)
            root_text = images_dir.name
        else:
            root_text = image_root or str(root)
        conn = sqlite3.connect(str(partial))
        with conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'image_root'", [root_text])
        conn.execute("VACUUM")
        conn.close()
        progress(3, 4, "recording the hand-out")
        os.replace(partial, path)
    except sqlite3.DatabaseError as error:
        partial.unlink(missing_ok=True)
        raise StudioError(
            f"Packing {person}'s work failed ({error}); nothing was written."
        ) from error
    except BaseException:
        partial.unlink(missing_ok=True)
        if with_images and copied:
            shutil.rmtree(images_dir, ignore_errors=True)
        raise
    with project.change(actor, "team.pack", "team_package", package_id) as record:
        project.db.execute(
            "INSERT INTO team_packages (package_id, person_id, path, created_at, handed_out) "
            "VALUES (?, ?, ?, ?, ?)",
            [package_id, person_id, str(path), utc_now(), json.dumps(counts, sort_keys=True)],
        )
        record["after"] = {"person": person, "path": str(path), "handed_out": counts}
    progress(4, 4, "packed")
    return PackResult(path, package_id, person, counts, copied)


def _cut_down(
    project: Project,
    partial: Path,
    person: str,
    person_id: int,
    package_id: str,
    counts: dict[str, int],
) -> list[str]:
    """Prune the copy to the person's work; returns the image paths it needs."""
    conn = sqlite3.connect(str(partial), isolation_level=None)
    try:
        # Foreign keys off while cutting; afterwards every row left pointing at something
        # removed is removed too (what ON DELETE CASCADE would do), for every table, also
        # tables this module does not know about.
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("BEGIN")
        conn.execute(
            "CREATE TEMP TABLE keep_pairs AS SELECT p.id FROM pairs p JOIN team_assignments t "
            "ON t.item = p.uid WHERE t.person_id = ? AND t.kind IN ('caption', 'review')",
            [person_id],
        )
        conn.execute(
            "CREATE TEMP TABLE keep_images AS "
            "SELECT reference_id AS id FROM pairs WHERE id IN (SELECT id FROM keep_pairs) "
            "UNION SELECT target_id FROM pairs WHERE id IN (SELECT id FROM keep_pairs) "
            "UNION SELECT ti.image_id FROM transaction_images ti JOIN rating_assignments a "
            "ON a.transaction_id = ti.transaction_id WHERE a.rater_id = ? "
            "UNION SELECT item FROM team_assignments WHERE person_id = ? "
            "AND kind = 'attributes'",
            [person_id, person_id],
        )
        for sql in _PRUNE:
            conn.execute(sql, {"pid": person_id, "name": person})
        _drop_orphans(conn)
        meta = {
            # the package is a copy of its own: what it makes carries the package id as
            # origin, so the audit log says which package changed what
            "origin_id": package_id,
            "name": f"{project.name} — {person}'s work",
            "team.package_id": package_id,
            "team.person": person,
            "team.packed_at": utc_now(),
            "team.source_origin": project.get_meta("origin_id") or "",
            "team.handed_out": json.dumps(counts, sort_keys=True),
        }
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            list(meta.items()),
        )
        conn.executemany(
            "INSERT INTO team_base (uid, kind, hash) VALUES (?, ?, ?)", list(snapshot(conn))
        )
        paths = [row[0] for row in conn.execute("SELECT path FROM images ORDER BY path")]
        conn.execute("COMMIT")
        return paths
    finally:
        conn.close()


def _drop_orphans(conn: sqlite3.Connection) -> None:
    while True:
        orphans = conn.execute("PRAGMA foreign_key_check").fetchall()
        if not orphans:
            return
        for table, rowid, _parent, _fk in orphans:
            conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', [rowid])


def _copy_images(root: Path, paths: list[str], target: Path, cancel: CancelToken | None) -> int:
    copied = 0
    for relative in paths:
        if cancel is not None and copied % 100 == 0:
            cancel.raise_if_cancelled()
        source = root / relative
        if not source.is_file():
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
        copied += 1
    return copied


def package_info(project: Project) -> dict[str, str] | None:
    """The package meta of an open project, or None when it is not a work package."""
    package_id = project.get_meta("team.package_id")
    if not package_id:
        return None
    return {
        "package_id": package_id,
        "person": project.get_meta("team.person") or "",
        "packed_at": project.get_meta("team.packed_at") or "",
    }
