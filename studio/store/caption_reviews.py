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
        "UPDATE captions SET text = :text, status = :status, reject_reason = :reject_reason, "
        "reviewer_id = (SELECT id FROM people WHERE name = :reviewer), reviewed_at = :reviewed_at, updated_at = :updated_at "
        "WHERE id = :caption_id",
        {
            "text": text,
            "status": status,
            "reject_reason": reject_reason,
            "reviewer": reviewer,
            "reviewed_at": reviewed_at,
            "updated_at": utc_now(),
            "caption_id": caption_id,
        },
    )
