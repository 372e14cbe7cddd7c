"""Images (the catalog): the reads and bulk writes importers and views need beyond
``Project.image`` / ``iter_images`` / ``add_images``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.store import binds
from studio.store.binds import in_list
from studio.store.project import Project

_CHUNK = 500  # ids per IN (...) list, well below every engine's parameter limit


def missing_flags(project: Project) -> dict[str, int]:
    """image id -> 1 when its file was missing when last looked at (else 0), every image."""
    rows = project.db.execute("SELECT id, missing FROM images ORDER BY id")
    return {str(image_id): int(missing) for image_id, missing in rows}


def image_ids(project: Project) -> set[str]:
    """Every image id of the project (an import adds only the ones it lacks)."""
    return {str(row[0]) for row in project.db.execute("SELECT id FROM images")}


def known_image_ids(project: Project, ids: Iterable[str]) -> set[str]:
    """Which of ``ids`` are images of the project."""
    known: set[str] = set()
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks, params = in_list("id", chunk)
        rows = project.db.execute(f"SELECT id FROM images WHERE id IN ({marks})", params)
        known.update(row[0] for row in rows.fetchall())
    return known


def first_galleries(project: Project, ids: Sequence[str]) -> list[tuple[str, tuple[str, str]]]:
    """(id, (category, split)) of the listed images that exist, by their own columns."""
    out: list[tuple[str, tuple[str, str]]] = []
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks, params = in_list("id", chunk)
        rows = project.db.execute(
            f"SELECT id, category, split FROM images WHERE id IN ({marks}) ORDER BY id", params
        )
        out += [(str(row[0]), (str(row[1]), str(row[2]))) for row in rows]
    return out


def add_missing_images(project: Project, rows: Iterable[Mapping[str, Any]]) -> None:
    """Insert image rows (``ImageRecord.to_row()`` plus ``added_at``); an id already
    present keeps its row. Runs inside the caller's transaction."""
    _insert(project, list(rows), replace=False)


def put_images(project: Project, rows: Iterable[Mapping[str, Any]]) -> None:
    """Insert image rows; an id already present gets the new values (its labels, gallery
    memberships and pairs stay: the row is updated, never deleted and re-made)."""
    _insert(project, list(rows), replace=True)


def _insert(project: Project, rows: list[Mapping[str, Any]], *, replace: bool) -> None:
    if not rows:
        return
    columns = list(rows[0])
    quoted = ", ".join(f'"{column}"' for column in columns)
    values = binds.marks(columns)
    action = "DO NOTHING"
    if replace:
        sets = ", ".join(f'"{c}" = excluded."{c}"' for c in columns if c not in ("id", "added_at"))
        action = f"DO UPDATE SET {sets}"
    project.db.conn.executemany(
        f"INSERT INTO images ({quoted}) VALUES ({values}) ON CONFLICT (id) {action}",
        [binds.row(columns, row) for row in rows],
    )
