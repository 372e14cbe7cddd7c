"""Datasets in and out: what importers write in bulk and what exporters read back.

Imports run inside the caller's ``project.change(...)``; exports only read. Pairs and
captions themselves belong to ``repos.pairs`` / ``repos.captions``; these are the bulk
paths of whole dataset files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from studio.store.binds import in_list
from studio.store.project import Project

_CHUNK = 500

# -- imports -------------------------------------------------------------------------


def set_source_format(project: Project, source: str, file: str, options: Any) -> None:
    """Remember how a dataset file was written, so an export writes it back the same way."""
    project.db.execute(
        "INSERT INTO source_formats (source, file, format) VALUES (:source, :file, :format) "
        "ON CONFLICT (source, file) DO UPDATE SET format = excluded.format",
        {"source": source, "file": file, "format": json.dumps(options)},
    )


def add_imported_pairs(
    project: Project,
    source: str,
    pairs: Sequence[tuple[str, str | None, str, str, str, str, Sequence[str]]],
    author_id: int | None,
    now: str,
) -> None:
    """Pairs ``(reference, target, category, split, external_key, extra, captions)`` of
    ``source``, captions in position order. A pair or a caption position already there is
    kept: importing the same file twice adds nothing."""
    db = project.db
    db.conn.executemany(
        "INSERT INTO pairs (reference_id, target_id, category, split, method, source, "
        "external_key, extra, created_at) VALUES (:reference_id, :target_id, :category, "
        ":split, 'imported', :source, :external_key, :extra, :now) "
        "ON CONFLICT (source, external_key) DO NOTHING",
        [
            {"reference_id": ref, "target_id": tar, "category": cat, "split": split,
             "source": source, "external_key": key, "extra": extra, "now": now}
            for ref, tar, cat, split, key, extra, _ in pairs
        ],
    )
    keys = [pair[4] for pair in pairs]
    ids: dict[str, int] = {}
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        marks, chunk_args = in_list("key", chunk)
        rows = db.execute(
            "SELECT external_key, id FROM pairs "
            f"WHERE source = :source AND external_key IN ({marks})",
            {"source": source, **chunk_args},
        ).fetchall()
        ids.update((str(key), int(pair_id)) for key, pair_id in rows)
    db.conn.executemany(
        "INSERT INTO captions (pair_id, position, text, author_id, status, created_at, "
        "updated_at) SELECT :pair_id, :position, :text, :author_id, 'submitted', :now, :now "
        "WHERE NOT EXISTS (SELECT 1 FROM captions WHERE pair_id = :pair_id "
        "AND position = :position)",
        [
            {"pair_id": ids[pair[4]], "position": position, "text": text,
             "author_id": author_id, "now": now}
            for pair in pairs
            for position, text in enumerate(pair[6])
        ],
    )


# -- exports -------------------------------------------------------------------------


def pairs_with_captions(
    project: Project, source: str | None, statuses: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """One row per (pair, caption of ``statuses``), pairs in id order, captions by position;
    a pair without such a caption gives one row whose caption columns are None."""
    where = "WHERE p.source = :source" if source else ""
    marks, params = in_list("status", statuses)
    sql = f"""
        SELECT p.id, p.reference_id, p.target_id, p.category, p.split, p.source,
               p.external_key, p.method, p.score, p.extra,
               c.position, c.text, c.status, a.name AS author, r.name AS reviewer,
               c.created_at, c.updated_at, c.reviewed_at, c.reject_reason, c.flagged
        FROM pairs p
        LEFT JOIN captions c ON c.pair_id = p.id AND c.status IN ({marks})
        LEFT JOIN people a ON a.id = c.author_id
        LEFT JOIN people r ON r.id = c.reviewer_id
        {where}
        ORDER BY p.id, c.position, c.id
    """
    if source:
        params["source"] = source
    yield from project.db.query(sql, params)


def count_pairs(project: Project) -> int:
    return int(project.db.execute("SELECT count(*) FROM pairs").fetchone()[0])


def split_images(
    project: Project, category: str | None, split: str, source: str | None = None
) -> list[tuple[str, str]]:
    """(id, path) of the images of one split (and category, source), in the order added."""
    clauses, params = ["split = :split"], {"split": split}
    if category is not None:
        clauses.append("category = :category")
        params["category"] = category
    if source:
        clauses.append("source = :source")
        params["source"] = source
    sql = f"SELECT id, path FROM images WHERE {' AND '.join(clauses)} ORDER BY seq"
    return [(str(row[0]), str(row[1])) for row in project.db.execute(sql, params)]


def image_splits(project: Project, source: str | None) -> set[str]:
    """The splits images of ``source`` (of any source) belong to."""
    sql = "SELECT DISTINCT split FROM images WHERE split != ''"
    params: dict[str, str] = {}
    if source:
        sql += " AND source = :source"
        params["source"] = source
    return {str(row[0]) for row in project.db.execute(sql, params)}


def gallery_groups(project: Project, source: str | None) -> set[tuple[str, str]]:
    """(category, split) of every gallery holding an image of ``source`` (of any)."""
    sql = (
        "SELECT DISTINCT g.category, g.split FROM gallery_members g JOIN images i "
        "ON i.id = g.image_id WHERE g.category != '' AND g.split != ''"
    )
    params: dict[str, str] = {}
    if source:
        sql += " AND i.source = :source"
        params["source"] = source
    return {(str(row[0]), str(row[1])) for row in project.db.execute(sql, params)}


def gallery_members(
    project: Project, category: str, split: str, source: str | None = None
) -> list[str]:
    """The gallery's image ids in split-file order (only images of ``source`` if given)."""
    sql = (
        "SELECT g.image_id FROM gallery_members g JOIN images i ON i.id = g.image_id "
        "WHERE g.category = :category AND g.split = :split"
    )
    params = {"category": category, "split": split}
    if source:
        sql += " AND i.source = :source"
        params["source"] = source
    sql += " ORDER BY g.position, g.seq"  # seq: ties in the order the members were added
    return [str(row[0]) for row in project.db.execute(sql, params)]


def source_formats(project: Project, source: str) -> dict[str, Any]:
    """How each file of ``source`` was written when it was imported, by its path."""
    rows = project.db.execute(
        "SELECT file, format FROM source_formats WHERE source = :source ORDER BY file", {"source": source}
    )
    return {str(row[0]): json.loads(row[1]) for row in rows}
