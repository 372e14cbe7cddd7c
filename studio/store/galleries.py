"""Gallery membership: which images make up the gallery of a (category, split), in order.

An image may belong to several galleries (Fashion IQ lists some images in both the shirt
and the toptee gallery). ``images.category``/``split`` name an image's first gallery;
``gallery_members`` holds them all, each with its position in the split file.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.store.project import Project


def gallery(project: Project, category: str, split: str) -> list[str]:
    """The image ids of one gallery in split-file order."""
    rows = project.db.execute(  # seq: ties of position in the order the members were added
        "SELECT image_id FROM gallery_members WHERE category = :category AND split = :split "
        "ORDER BY position, seq",
        {"category": category, "split": split},
    )
    return [row[0] for row in rows]


def galleries(project: Project) -> dict[tuple[str, str], int]:
    """Every gallery with its size."""
    rows = project.db.execute(
        "SELECT category, split, count(*) FROM gallery_members GROUP BY category, split "
        "ORDER BY category, split"
    )
    return {(row[0], row[1]): int(row[2]) for row in rows}


def set_gallery(project: Project, category: str, split: str, image_ids: Iterable[str]) -> None:
    """Make the listed images members of the gallery at their listed positions.

    Runs inside the caller's transaction; the images must exist. Members not listed stay.
    """
    project.db.conn.executemany(
        "INSERT INTO gallery_members (image_id, category, split, position) VALUES "
        "(:image_id, :category, :split, :position) "
        "ON CONFLICT (category, split, image_id) DO UPDATE SET position = excluded.position",
        [
            {"image_id": image_id, "category": category, "split": split, "position": position}
            for position, image_id in enumerate(image_ids)
        ],
    )
