"""Putting a caption's review back as it was (undo of an accept or a reject)."""

from __future__ import annotations

from studio.store.database import utc_now
from studio.store.project import Project


def restore_review(
    project: Project,
    caption_id: int,
    text: str,
    status: str,
    reject_reason: str | None,
    reviewer: str | None,
    reviewed_at: str | None,
) -> None:
    """Write back a caption's reviewed fields; inside the caller's ``project.change``."""
    project.db.execute(
        "UPDATE captions SET text = ?, status = ?, reject_reason = ?, "
        "reviewer_id = (SELECT id FROM people WHERE name = ?), reviewed_at = ?, updated_at = ? "
        "WHERE id = ?",
        [text, status, reject_reason, reviewer, reviewed_at, utc_now(), caption_id],
    )
