"""Which images have their picture file: the ``missing`` flag of the images table.

Imports set the flag; pointing the project at another image folder sets it again for
every image (``studio.picture_files``). Writes run inside the caller's ``change()``.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.store.project import Project


def picture_counts(project: Project) -> tuple[int, int]:
    """(images, images without their picture file)."""
    row = project.db.execute("SELECT count(*), coalesce(sum(missing), 0) FROM images").fetchone()
    return int(row[0]), int(row[1])


def stored_picture_paths(project: Project) -> list[tuple[str, str, bool]]:
    """(image id, path relative to the image root, missing) for every image."""
    rows = project.db.execute("SELECT id, path, missing FROM images ORDER BY id")
    return [(row[0], row[1], bool(row[2])) for row in rows]


def mark_pictures(project: Project, found: Iterable[str], missing: Iterable[str]) -> None:
    """Set the flag: ``found`` images have their file, ``missing`` ones have none."""
    for flag, ids in ((0, list(found)), (1, list(missing))):
        project.db.conn.executemany(
            "UPDATE images SET missing = :flag WHERE id = :image_id",
            [{"flag": flag, "image_id": image_id} for image_id in ids],
        )


def pairs_without_pictures(project: Project) -> int:
    """Pairs whose reference or target has no picture file (never offered for captions)."""
    row = project.db.execute(
        "SELECT count(*) FROM pairs WHERE reference_id IN (SELECT id FROM images WHERE "
        "missing = 1) OR target_id IN (SELECT id FROM images WHERE missing = 1)"
    ).fetchone()
    return int(row[0])
