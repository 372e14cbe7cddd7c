"""Caption ranks: what a caption found when it was last ranked, kept on its caption row.

Rows come back as tuples ``(caption_id, rank, gallery_size, model, strategy, index_key,
text, ranked_at)``; ``studio.captions.ranks`` turns them into ``StoredRank``. Writing a
rank is not a person's change: no audit row, and the caller's transaction (or one of its
own) holds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from studio.store.project import Project

_COLUMNS = "id, rank, gallery_size, rank_model, rank_strategy, rank_index_key, rank_text, ranked_at"
RankRow = tuple[Any, ...]


def save_ranks(project: Project, ranks: Iterable[tuple[int, dict[str, Any]]], now: str) -> None:
    """Keep each ``(caption_id, rank)`` (keys: rank, gallery_size, model, strategy,
    index_key, text) with its caption, all in one transaction (all or none)."""
    with project.writing():
        for caption_id, rank in ranks:
            project.db.execute(
                "UPDATE captions SET rank = :rank, gallery_size = :gallery_size, rank_model = :model, "
                "rank_strategy = :strategy, rank_index_key = :index_key, rank_text = :text, ranked_at = :now "
                "WHERE id = :caption_id",
                {
                    "rank": rank["rank"],
                    "gallery_size": rank["gallery_size"],
                    "model": rank["model"],
                    "strategy": rank["strategy"],
                    "index_key": rank["index_key"],
                    "text": rank["text"],
                    "now": now,
                    "caption_id": caption_id,
                },
            )


def stored_rank(project: Project, caption_id: int) -> RankRow | None:
    row = project.db.execute(
        f"SELECT {_COLUMNS} FROM captions WHERE id = :caption_id AND rank_model IS NOT NULL", {
            "caption_id": caption_id,
        }
    ).fetchone()
    return None if row is None else tuple(row)


def stored_ranks(project: Project) -> list[RankRow]:
    """Every ranked caption, in caption id order."""
    rows = project.db.execute(
        f"SELECT {_COLUMNS} FROM captions WHERE rank_model IS NOT NULL ORDER BY id"
    ).fetchall()
    return [tuple(row) for row in rows]


def live_ranks_with_text(project: Project) -> list[tuple[RankRow, str]]:
    """(stored rank, the caption's current text) of every ranked live caption."""
    rows = project.db.execute(
        f"SELECT {_COLUMNS}, text FROM captions WHERE rank_model IS NOT NULL "
        "AND status IN ('submitted', 'accepted') ORDER BY id"
    ).fetchall()
    return [(tuple(row[:8]), row[8]) for row in rows]


def live_ranks_by_author(project: Project) -> list[tuple[str, int | None]]:
    """(author or '(unknown)', stored rank) of ranked live captions, by author then id."""
    rows = project.db.execute(
        "SELECT coalesce(a.name, '(unknown)') AS author, c.rank FROM captions c "
        "LEFT JOIN people a ON a.id = c.author_id "
        "WHERE c.rank_model IS NOT NULL AND c.status IN ('submitted', 'accepted') "
        "ORDER BY author, c.id"
    ).fetchall()
    return [(row[0], None if row[1] is None else int(row[1])) for row in rows]


def captions_to_rank(project: Project, source: str | None = None) -> list[tuple[int, int, str, str]]:
    """(caption id, pair id, text, author or '') of live captions of pairs with a target
    (from ``source`` only, when given), in pair and writing order."""
    sql = (
        "SELECT c.id, c.pair_id, c.text, coalesce(a.name, '') FROM captions c "
        "JOIN pairs p ON p.id = c.pair_id LEFT JOIN people a ON a.id = c.author_id "
        "WHERE c.status IN ('submitted', 'accepted') AND p.target_id IS NOT NULL"
    )
    params: dict[str, Any] = {}
    if source is not None:
        sql += " AND p.source = :source"
        params["source"] = source
    rows = project.db.execute(sql + " ORDER BY c.pair_id, c.position, c.id", params).fetchall()
    return [(int(r[0]), int(r[1]), r[2], r[3]) for r in rows]
