"""An author's draft taken back: the scratch row goes, so nothing empty is kept or counted."""

from __future__ import annotations

from studio.store.project import Project


def discard_draft(project: Project, pair_id: int, author: str) -> bool:
    """Delete the author's draft on this pair (never a submitted or reviewed caption).

    Runs inside the caller's ``project.writing("captions")``. True when a draft went.
    """
    rows = project.db.execute(
        "DELETE FROM captions WHERE pair_id = :pair_id AND status = 'draft' "
        "AND author_id = (SELECT id FROM people WHERE name = :author) RETURNING id",
        {"pair_id": pair_id, "author": author},
    ).fetchall()
    return bool(rows)
