"""Reads the exchange formats (Hugging Face / Parquet) need that no other repository has."""

from __future__ import annotations

from studio.store.project import Project


def gallery_rows(project: Project) -> list[tuple[str, str, str, int]]:
    """Every gallery membership as (category, split, image id, position), in gallery order."""
    rows = project.db.execute(
        "SELECT category, split, image_id, position FROM gallery_members "
        "ORDER BY category, split, position, image_id"
    )
    return [(str(c), str(s), str(i), int(p)) for c, s, i, p in rows]


def existing_pair_keys(project: Project, source: str) -> set[str]:
    """The external keys of ``source``'s pairs already in the project."""
    rows = project.db.execute("SELECT external_key FROM pairs WHERE source = :source", {"source": source})
    return {str(row[0]) for row in rows}


def restore_pair_details(
    project: Project, source: str, rows: list[tuple[str, str]]
) -> None:
    """Set (external key, method) of pairs just imported (inside the import's change)."""
    project.db.conn.executemany(
        "UPDATE pairs SET method = :method WHERE source = :source AND external_key = :key",
        [{"method": method, "source": source, "key": key} for key, method in rows],
    )


def restore_caption_details(
    project: Project, source: str, rows: list[tuple[str, int, dict[str, object]]]
) -> None:
    """Give captions just imported their recorded author, status, reviewer and times.

    ``rows`` are (pair external key, position, details with ``author_id``, ``status``,
    ``reviewer_id``, ``created_at``, ``updated_at``, ``reviewed_at``); runs inside the
    import's change, on captions that import created (never on edited ones).
    """
    project.db.conn.executemany(
        "UPDATE captions SET author_id = :author_id, status = :status, "
        "reviewer_id = :reviewer_id, created_at = coalesce(:created_at, created_at), "
        "updated_at = coalesce(:updated_at, updated_at), reviewed_at = :reviewed_at "
        "WHERE position = :position AND pair_id = "
        "(SELECT id FROM pairs WHERE source = :source AND external_key = :key)",
        [
            {"author_id": d["author_id"], "status": d["status"], "reviewer_id": d["reviewer_id"],
             "created_at": d["created_at"], "updated_at": d["updated_at"],
             "reviewed_at": d["reviewed_at"], "position": position, "source": source,
             "key": key}
            for key, position, d in rows
        ],
    )
