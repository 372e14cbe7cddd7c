"""Several correct images per pair (CIRCO's ``gt_img_ids``): the ``pair_ground_truths`` table.

A pair's named target stays in ``pairs.target_id``; this table lists every image that
counts as a correct answer, in the order the dataset gives them (CIRCO puts the named
target first). Writes run inside the caller's ``project.change(...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from studio.store.binds import in_list
from studio.store.project import Project

CHUNK = 500


def add_ground_truths(project: Project, rows: Iterable[tuple[int, Sequence[str]]]) -> None:
    """Record each (pair id, image ids in order); rows already there are kept as they are."""
    project.db.conn.executemany(
        "INSERT INTO pair_ground_truths (pair_id, image_id, position) VALUES "
        "(:pair_id, :image_id, :position) ON CONFLICT (pair_id, image_id) DO NOTHING",
        [
            {"pair_id": pair_id, "image_id": image_id, "position": position}
            for pair_id, image_ids in rows
            for position, image_id in enumerate(image_ids)
        ],
    )


def add_ground_truths_by_key(
    project: Project, source: str, rows: Iterable[tuple[str, Sequence[str]]]
) -> None:
    """``add_ground_truths`` for pairs named by (``source``, external key), as an import
    knows them; rows already there are kept."""
    project.db.conn.executemany(
        "INSERT INTO pair_ground_truths (pair_id, image_id, position) "
        "SELECT id, :image_id, :position FROM pairs WHERE source = :source "
        "AND external_key = :key ON CONFLICT (pair_id, image_id) DO NOTHING",
        [
            {"image_id": image_id, "position": position, "source": source, "key": key}
            for key, image_ids in rows
            for position, image_id in enumerate(image_ids)
        ],
    )


def ground_truths(project: Project, pair_ids: Iterable[int]) -> dict[int, list[str]]:
    """The ground truths of each asked pair that has any, in dataset order."""
    wanted = list(pair_ids)
    found: dict[int, list[str]] = {}
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        marks, params = in_list("pair", chunk)
        rows = project.db.execute(
            f"SELECT pair_id, image_id FROM pair_ground_truths WHERE pair_id IN ({marks}) "
            "ORDER BY pair_id, position",
            params,
        )
        for pair_id, image_id in rows:
            found.setdefault(int(pair_id), []).append(str(image_id))
    return found


def pairs_with_ground_truths(
    project: Project, reference_id: str, target_id: str
) -> dict[int, list[str]]:
    """Ground truths of every pair from ``reference_id`` whose named target is
    ``target_id`` (a retrieval session on that query marks them all as correct)."""
    rows = project.db.execute(
        "SELECT g.pair_id, g.image_id FROM pair_ground_truths g "
        "JOIN pairs p ON p.id = g.pair_id WHERE p.reference_id = :reference_id AND p.target_id = :target_id "
        "ORDER BY g.pair_id, g.position",
        {"reference_id": reference_id, "target_id": target_id},
    )
    found: dict[int, list[str]] = {}
    for pair_id, image_id in rows:
        found.setdefault(int(pair_id), []).append(str(image_id))
    return found

