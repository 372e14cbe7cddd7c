"""Pairs: reading them for the browser, the miner and ranking; adding mined pairs.

The browser holds only the ids matching its filters and asks for the full rows of the
few it shows (``pair_rows``). A pair's status filters follow from its captions and the
quota (captions per pair) the caller passes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from studio.store.binds import in_list
from studio.store.project import Project

_AGGREGATE = """
    SELECT pair_id,
           sum(CASE WHEN status IN ('submitted', 'accepted') THEN 1 ELSE 0 END) AS live,
           sum(CASE WHEN status = 'submitted' THEN 1 ELSE 0 END) AS pending,
           sum(CASE WHEN status = 'rejected' THEN 1 ELSE 0 END) AS rejected
    FROM captions GROUP BY pair_id
"""
STATUS_SQL = {
    "needs_caption": "coalesce(c.live, 0) = 0",
    "needs_more": "coalesce(c.live, 0) > 0 AND c.live < :quota",
    "in_review": "coalesce(c.live, 0) >= :quota AND c.pending > 0",
    "accepted": "coalesce(c.live, 0) >= :quota AND c.pending = 0",
    "rejected": "coalesce(c.rejected, 0) > 0",
}


def pair_ids(
    project: Project,
    *,
    quota: int,
    category: str | None = None,
    split: str | None = None,
    status: str | None = None,
    annotator: str | None = None,
    search: str = "",
) -> list[int]:
    """Ids of the matching pairs in creation order. ``status`` is a key of ``STATUS_SQL``;
    ``search`` matches image ids and titles (and the pair id when it is a number)."""
    clauses = ["1 = 1"]
    params: dict[str, object] = {"quota": quota}
    if category is not None:
        clauses.append("p.category = :category")
        params["category"] = category
    if split is not None:
        clauses.append("p.split = :split")
        params["split"] = split
    if status is not None:
        clauses.append(STATUS_SQL[status])
    if annotator:
        clauses.append(
            "EXISTS (SELECT 1 FROM captions x JOIN people a ON a.id = x.author_id "
            "WHERE x.pair_id = p.id AND a.name = :annotator)"
        )
        params["annotator"] = annotator
    search = search.strip()
    if search:
        like = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        params["like"] = like.lower()
        # lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not
        match = [
            f"lower({column}) LIKE :like ESCAPE '\\'"
            for column in ("p.reference_id", "p.target_id", "ri.title", "ti.title")
        ]
        if search.isdigit():
            match.append("p.id = :number")
            params["number"] = int(search)
        clauses.append("(" + " OR ".join(match) + ")")
    sql = "SELECT p.id FROM pairs p"
    if status is not None:
        sql += f" LEFT JOIN ({_AGGREGATE}) c ON c.pair_id = p.id"
    if search:
        sql += (
            " LEFT JOIN images ri ON ri.id = p.reference_id"
            " LEFT JOIN images ti ON ti.id = p.target_id"
        )
    sql += " WHERE " + " AND ".join(clauses) + " ORDER BY p.id"
    return [row[0] for row in project.db.execute(sql, params)]


def pair_rows(project: Project, ids: list[int]) -> list[dict[str, Any]]:
    """Full rows of the given pairs: the pair, its image titles, caption counts (live,
    pending, rejected) and its authors (names of written captions, sorted, comma-separated)."""
    if not ids:
        return []
    marks, params = in_list("pair", ids)
    sql = f"""
        SELECT p.id, p.category, p.split, p.reference_id, p.target_id,
               coalesce(ri.title, '') AS reference_title,
               coalesce(ti.title, '') AS target_title, p.method, p.score, p.source,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status IN ('submitted', 'accepted')) AS live,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status = 'submitted') AS pending,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status = 'rejected') AS rejected
        FROM pairs p
        LEFT JOIN images ri ON ri.id = p.reference_id
        LEFT JOIN images ti ON ti.id = p.target_id
        WHERE p.id IN ({marks})
        ORDER BY p.id
    """
    rows = list(project.db.query(sql, params))
    authors: dict[int, list[str]] = {}
    for pair_id, name in project.db.execute(
        "SELECT DISTINCT c.pair_id, a.name FROM captions c JOIN people a ON a.id = c.author_id "
        f"WHERE c.pair_id IN ({marks}) AND c.status != 'draft' ORDER BY c.pair_id, a.name",
        params,
    ):
        authors.setdefault(pair_id, []).append(name)
    return [{**row, "authors": ",".join(authors.get(row["id"], []))} for row in rows]


def filter_choices(project: Project) -> dict[str, list[Any]]:
    """Values the filter menus offer: categories, splits and annotators present."""
    db = project.db
    return {
        "category": [r[0] for r in db.execute("SELECT DISTINCT category FROM pairs ORDER BY 1")],
        "split": [r[0] for r in db.execute("SELECT DISTINCT split FROM pairs ORDER BY 1")],
        "annotator": [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT a.name FROM captions c JOIN people a ON a.id = c.author_id "
                "ORDER BY 1"
            )
        ],
    }


def pair_image_files(
    project: Project, ids: list[int]
) -> list[tuple[int, str | None, int, str | None, int]]:
    """(pair id, reference path, reference missing, target path, target missing)."""
    if not ids:
        return []
    marks, params = in_list("pair", ids)
    rows = project.db.execute(
        f"SELECT p.id, ri.path, ri.missing, ti.path, ti.missing FROM pairs p "
        f"LEFT JOIN images ri ON ri.id = p.reference_id "
        f"LEFT JOIN images ti ON ti.id = p.target_id WHERE p.id IN ({marks}) ORDER BY p.id",
        params,
    )
    return [tuple(row) for row in rows]


def pair_images(project: Project, pair_id: int) -> tuple[str, str | None] | None:
    """(reference id, target id) of a pair, or None if it does not exist."""
    row = project.db.execute(
        "SELECT reference_id, target_id FROM pairs WHERE id = :pair_id", {"pair_id": pair_id}
    ).fetchone()
    return None if row is None else (row[0], row[1])


def pair_with_images(project: Project, reference_id: str, target_id: str | None) -> int | None:
    """The first pair (by id) from this reference to this target, or None."""
    if target_id is None:
        row = project.db.execute(
            "SELECT min(id) FROM pairs WHERE reference_id = :reference_id AND target_id IS NULL",
            {"reference_id": reference_id},
        ).fetchone()
    else:
        row = project.db.execute(
            "SELECT min(id) FROM pairs WHERE reference_id = :reference_id AND target_id = :target_id",
            {"reference_id": reference_id, "target_id": target_id},
        ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def pair_row(project: Project, pair_id: int) -> dict[str, Any] | None:
    """The pair's stored columns, or None if it does not exist."""
    rows = list(project.db.query("SELECT * FROM pairs WHERE id = :pair_id", {"pair_id": pair_id}))
    return rows[0] if rows else None


def count(project: Project) -> int:
    return int(project.db.execute("SELECT count(*) FROM pairs").fetchone()[0])


def visible_images_by_group(
    project: Project, category: str | None = None, split: str | None = None
) -> list[tuple[str, str, str, str, str | None]]:
    """(category, split, id, title, content hash) of images whose file is present and that
    have a category and split, by group then id."""
    sql = (
        "SELECT category, split, id, title, content_hash FROM images "
        "WHERE missing = 0 AND category != '' AND split != ''"
    )
    params = {}
    if category:
        sql += " AND category = :category"
        params["category"] = category
    if split:
        sql += " AND split = :split"
        params["split"] = split
    rows = project.db.execute(sql + " ORDER BY category, split, id", params)
    return [tuple(row) for row in rows]


def pairs_with_target(project: Project, split: str | None = None) -> list[tuple[int, str, str]]:
    """(id, reference id, target id) of pairs that have a target (of ``split``), by id."""
    rows = project.db.execute(
        "SELECT id, reference_id, target_id FROM pairs WHERE target_id IS NOT NULL"
        + (" AND split = :split" if split else "")
        + " ORDER BY id",
        {"split": split} if split else {},
    ).fetchall()
    return [(int(r[0]), r[1], r[2]) for r in rows]


def targets_of_method(project: Project, method: str) -> set[str]:
    rows = project.db.execute("SELECT target_id FROM pairs WHERE method = :method", {"method": method})
    return {row[0] for row in rows}


def image_pairs(project: Project) -> set[frozenset[str]]:
    """Every pair of the project as an unordered set of its two images."""
    rows = project.db.execute("SELECT reference_id, target_id FROM pairs")
    return {frozenset((row[0], row[1])) for row in rows}


def add_pairs(project: Project, pairs: Iterable[dict[str, Any]], now: str) -> int:
    """Insert pairs (keys: reference_id, target_id, category, split, method, score, source,
    external_key) in the caller's transaction; one already there (same source and
    external key) is kept. Returns how many were new."""
    added = 0
    for pair in pairs:
        row = project.db.execute(
            "INSERT INTO pairs (reference_id, target_id, category, split, method, score, "
            "source, external_key, created_at) VALUES (:reference_id, :target_id, :category, :split, :method, :score, :source, :external_key, :now) "
            "ON CONFLICT (source, external_key) DO NOTHING RETURNING id",
            {
                "reference_id": pair["reference_id"],
                "target_id": pair["target_id"],
                "category": pair["category"],
                "split": pair["split"],
                "method": pair["method"],
                "score": pair["score"],
                "source": pair["source"],
                "external_key": pair["external_key"],
                "now": now,
            },
        ).fetchone()
        added += row is not None
    return added
