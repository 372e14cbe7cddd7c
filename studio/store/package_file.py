"""Work package files: reading one back for a merge, and cutting one out of a project.

A work package is itself an SQLite project file (so a person opens it in the studio like
any project); opening, copying and pruning that file is the store's business, and all of
it is SQLite dialect: ``VACUUM INTO``, ``PRAGMA``, ``rowid``, temporary tables. The team
workflow (``studio.team.pack`` / ``studio.team.merge``) keeps the rules and calls these.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from studio.errors import ProjectError
from studio.store.errors import StoreError
from studio.store.project import Project
from studio.store.repos.team_records import snapshot


class PackageFileError(ProjectError):
    """The package file could not be written or read (the message says what SQLite said)."""


class PackageFile:
    """A private copy of a returned work package, open for reading its records."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path  # the person's file (the copy lives in the scratch folder)

    @classmethod
    def open(cls, path: Path, scratch: Path) -> PackageFile:
        """Copy ``path`` into ``scratch`` and open the copy, refusing anything not a package.

        The copy (with its ``-wal`` file, if the person's studio left one: their last edits
        may still be there) lets a package on a read-only stick or share merge, and opening
        it replays its WAL without touching the person's file.
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
            package_id = conn.execute(
                "SELECT value FROM meta WHERE key = 'team.package_id'"
            ).fetchone()
        except sqlite3.DatabaseError as error:
            conn.close()
            raise ProjectError(f"{path} is not a CIR Studio work package ({error}).") from error
        if package_id is None:
            conn.close()
            raise ProjectError(f"{path} is a project, not a work package (it has no package id).")
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall())

    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])  # dialect: sqlite

    def base(self) -> dict[str, dict[str, str]]:
        """kind -> uid -> content hash: what the package held when it was packed."""
        out: dict[str, dict[str, str]] = {}
        for uid, kind, digest in self.conn.execute(
            "SELECT uid, kind, hash FROM team_base ORDER BY uid"
        ):
            out.setdefault(kind, {})[uid] = digest
        return out


# -- packing -------------------------------------------------------------------------

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


def copy_project(project: Project, target: Path) -> None:
    """A snapshot of the whole project into the new SQLite file ``target``.

    A package is always an SQLite file (the person works offline). From an SQLite project
    ``VACUUM INTO`` takes a consistent snapshot; a PostgreSQL project is copied by the
    engines' own ``project copy`` (``studio.store.transfer``), which writes that format.
    """
    if project.url is not None:  # dialect: postgresql (one read snapshot, in transfer)
        from studio.store.transfer import copy_project as copy_between_engines

        try:
            copy_between_engines(project.url, target)
        except StoreError as error:
            raise PackageFileError(str(error)) from error
        return
    try:
        project.db.execute("VACUUM INTO ?", [str(target)])  # dialect: sqlite
    except StoreError as error:
        raise PackageFileError(str(error)) from error


def cut_down(target: Path, person: str, person_id: int, meta: Mapping[str, str]) -> list[str]:
    """Prune the copy to the person's work, set its ``meta`` and record its base snapshot.

    Returns the image paths the package needs. One transaction: a failure leaves the copy
    as it was (and the caller removes it).
    """
    try:
        conn = sqlite3.connect(str(target), isolation_level=None)
    except sqlite3.DatabaseError as error:
        raise PackageFileError(str(error)) from error
    try:
        # Foreign keys off while cutting; afterwards every row left pointing at something
        # removed is removed too (what ON DELETE CASCADE would do), for every table, also
        # tables this module does not know about.
        conn.execute("PRAGMA foreign_keys = OFF")  # dialect: sqlite
        conn.execute("PRAGMA journal_mode = DELETE")  # dialect: sqlite
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
    except sqlite3.DatabaseError as error:
        raise PackageFileError(str(error)) from error
    finally:
        conn.close()


def _drop_orphans(conn: sqlite3.Connection) -> None:
    while True:
        orphans = conn.execute("PRAGMA foreign_key_check").fetchall()  # dialect: sqlite
        if not orphans:
            return
        for table, rowid, _parent, _fk in orphans:
            conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', [rowid])  # dialect: sqlite


def finish(target: Path, image_root: str) -> None:
    """Point the package at its images, then vacuum: nothing deleted stays readable."""
    try:
        conn = sqlite3.connect(str(target))
        try:
            with conn:
                conn.execute("UPDATE meta SET value = ? WHERE key = 'image_root'", [image_root])
            conn.execute("VACUUM")  # dialect: sqlite
        finally:
            conn.close()
    except sqlite3.DatabaseError as error:
        raise PackageFileError(str(error)) from error
