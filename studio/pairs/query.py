"""Finding pairs for the browser: filters to an id list, then rows fetched a page at a time.

The Pairs view holds only the ids that match the filters (a single integer column, cheap
even for 100,000 pairs) and asks for the full rows of the few it shows. A pair's status
follows from its captions and the caption policy:

- ``needs_caption``: no submitted or accepted caption yet;
- ``needs_more``: some, but fewer than the policy asks for;
- ``in_review``: enough captions, at least one not reviewed yet;
- ``accepted``: enough captions, all accepted;
- ``rejected`` (a filter, not a state): a caption of the pair was rejected.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from studio.captions.records import CaptionPolicy
from studio.errors import ImagePathError
from studio.store import Project

STATUS_FILTERS = {
    "needs_caption": "needs caption",
    "needs_more": "needs second caption",
    "in_review": "in review",
    "accepted": "accepted",
    "rejected": "rejected",
}

_AGGREGATE = """
    SELECT pair_id,
           sum(status IN ('submitted', 'accepted')) AS live,
           sum(status = 'submitted') AS pending,
           sum(status = 'rejected') AS rejected
    FROM captions GROUP BY pair_id
"""
_STATUS_SQL = {
    "needs_caption": "coalesce(c.live, 0) = 0",
    "needs_more": "coalesce(c.live, 0) > 0 AND c.live < :quota",
    "in_review": "coalesce(c.live, 0) >= :quota AND c.pending > 0",
    "accepted": "coalesce(c.live, 0) >= :quota AND c.pending = 0",
    "rejected": "coalesce(c.rejected, 0) > 0",
}


@dataclass(frozen=True)
class PairFilter:
    category: str | None = None
    split: str | None = None
    status: str | None = None
    annotator: str | None = None
    search: str = ""

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUS_FILTERS:
            raise ValueError(
                f"unknown status filter {self.status!r}; expected one of "
                f"{', '.join(STATUS_FILTERS)}"
            )


@dataclass(frozen=True)
class PairRow:
    id: int
    category: str
    split: str
    reference_id: str
    target_id: str | None
    reference_title: str
    target_title: str
    method: str
    score: float | None
    source: str
    live: int
    pending: int
    rejected: int
    authors: str

    def status(self, policy: CaptionPolicy) -> str:
        if self.live == 0:
            return STATUS_FILTERS["needs_caption"]
        if self.live < policy.per_pair:
            return STATUS_FILTERS["needs_more"]
        return STATUS_FILTERS["in_review"] if self.pending else STATUS_FILTERS["accepted"]


def pair_ids(project: Project, where: PairFilter, policy: CaptionPolicy) -> list[int]:
    """Ids of the pairs matching ``where``, in creation order."""
    clauses = ["1 = 1"]
    params: dict[str, object] = {"quota": policy.per_pair}
    join_captions = where.status is not None
    if where.category is not None:
        clauses.append("p.category = :category")
        params["category"] = where.category
    if where.split is not None:
        clauses.append("p.split = :split")
        params["split"] = where.split
    if where.status is not None:
        clauses.append(_STATUS_SQL[where.status])
    if where.annotator:
        clauses.append(
            "EXISTS (SELECT 1 FROM captions x JOIN people a ON a.id = x.author_id "
            "WHERE x.pair_id = p.id AND a.name = :annotator)"
        )
        params["annotator"] = where.annotator
    search = where.search.strip()
    join_images = bool(search)
    if search:
        like = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        params["like"] = like
        match = [
            "p.reference_id LIKE :like ESCAPE '\\'",
            "p.target_id LIKE :like ESCAPE '\\'",
            "ri.title LIKE :like ESCAPE '\\'",
            "ti.title LIKE :like ESCAPE '\\'",
        ]
        if search.isdigit():
            match.append("p.id = :number")
            params["number"] = int(search)
        clauses.append("(" + " OR ".join(match) + ")")
    sql = "SELECT p.id FROM pairs p"
    if join_captions:
        sql += f" LEFT JOIN ({_AGGREGATE}) c ON c.pair_id = p.id"
    if join_images:
        sql += (
            " LEFT JOIN images ri ON ri.id = p.reference_id"
            " LEFT JOIN images ti ON ti.id = p.target_id"
        )
    sql += " WHERE " + " AND ".join(clauses) + " ORDER BY p.id"
    return [row[0] for row in project.db.execute(sql, params)]


def pair_rows(project: Project, ids: list[int]) -> dict[int, PairRow]:
    """Full rows of the given pairs (one query), keyed by id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = f"""
        SELECT p.id, p.category, p.split, p.reference_id, p.target_id,
               coalesce(ri.title, '') AS reference_title,
               coalesce(ti.title, '') AS target_title, p.method, p.score, p.source,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status IN ('submitted', 'accepted')) AS live,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status = 'submitted') AS pending,
               (SELECT count(*) FROM captions c WHERE c.pair_id = p.id
                    AND c.status = 'rejected') AS rejected,
               coalesce((SELECT group_concat(DISTINCT a.name) FROM captions c
                    JOIN people a ON a.id = c.author_id
                    WHERE c.pair_id = p.id AND c.status != 'draft'), '') AS authors
        FROM pairs p
        LEFT JOIN images ri ON ri.id = p.reference_id
        LEFT JOIN images ti ON ti.id = p.target_id
        WHERE p.id IN ({marks})
    """
    return {row["id"]: PairRow(**row) for row in project.db.query(sql, ids)}


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


def pair_thumbnails(
    project: Project, ids: list[int]
) -> dict[int, tuple[tuple[str, bool] | None, tuple[str, bool] | None]]:
    """{pair id: ((reference file, missing), (target file, missing))} for thumbnails."""
    if not ids:
        return {}
    root = str(project.image_root) + os.sep  # plain strings: this runs for every page shown
    marks = ",".join("?" * len(ids))
    rows = project.db.execute(
        f"SELECT p.id, ri.path, ri.missing, ti.path, ti.missing FROM pairs p "
        f"LEFT JOIN images ri ON ri.id = p.reference_id "
        f"LEFT JOIN images ti ON ti.id = p.target_id WHERE p.id IN ({marks})",
        ids,
    )

    def shown(path: str | None, missing: int) -> tuple[str, bool] | None:
        if path is None:
            return None
        if path.startswith(("../", "/")) or "/../" in path:  # check only what may leave
            try:
                return str(project.stored_file(path)), bool(missing)
            except ImagePathError:
                return root + path, True  # refused: drawn as missing, never read
        return root + path, bool(missing)

    return {row[0]: (shown(row[1], row[2]), shown(row[3], row[4])) for row in rows}


def pair_images(project: Project, pair_id: int) -> tuple[str, str | None] | None:
    """(reference id, target id) of a pair, or None if it does not exist."""
    row = project.db.execute(
        "SELECT reference_id, target_id FROM pairs WHERE id = ?", [pair_id]
    ).fetchone()
    return None if row is None else (row[0], row[1])
