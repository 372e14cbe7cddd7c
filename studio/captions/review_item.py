"""A caption as a reviewer sees it, read from a project: its text and status, author,
automatic flags with their reasons, the pair's other captions and an earlier decision.

The desktop's review queue (``studio.work_queue.local_review``) and the team server's
(``studio.server.reviews``) both describe a caption with ``describe``, so a reviewer sees
the same things whichever queue serves them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studio.captions import store
from studio.captions.flags import Flag, caption_flags
from studio.store import Project
from studio.store.repos import server as pairs_repo


@dataclass(frozen=True)
class OtherCaption:
    """Another caption of the same pair (drafts are not shown)."""

    text: str
    author: str | None
    status: str


@dataclass(frozen=True)
class ReviewItem:
    """One caption to review, as the reviewer sees it: its text and status, its author
    (None: not shown), the automatic flags with their reasons, the pair's other captions,
    an earlier decision; the lease when a team server holds it for this reviewer."""

    caption_id: int
    pair_id: int
    text: str
    status: str
    author: str | None = None
    category: str = ""
    reference_id: str | None = None
    target_id: str | None = None
    flags: tuple[Flag, ...] = ()
    others: tuple[OtherCaption, ...] = ()
    reviewer: str | None = None  # who decided it, when it was decided
    reject_reason: str | None = None
    lease_id: int | None = None
    expires_at: float | None = None


def describe(project: Project, caption_id: int) -> ReviewItem:
    """A stored caption as a reviewer sees it (``StudioError`` when it does not exist)."""
    caption = store.get_caption(project, caption_id)
    pair = pairs_repo.pair_images(project, caption.pair_id) or {}
    others = tuple(
        OtherCaption(c.text, c.author, c.status)
        for c in store.captions_for_pair(project, caption.pair_id)
        if c.id != caption.id and c.status != "draft"
    )
    decided = caption.status in ("accepted", "rejected")
    return ReviewItem(
        caption_id=caption.id,
        pair_id=caption.pair_id,
        text=caption.text,
        status=caption.status,
        author=caption.author,
        category=pair.get("category") or "",
        reference_id=pair.get("reference_id"),
        target_id=pair.get("target_id"),
        flags=tuple(caption_flags(project, caption)),
        others=others,
        reviewer=caption.reviewer if decided else None,
        reject_reason=caption.reject_reason if caption.status == "rejected" else None,
    )


def to_wire(item: ReviewItem) -> dict[str, Any]:
    """The item as the team server sends it (JSON)."""
    return {
        **{key: value for key, value in item.__dict__.items() if key not in ("flags", "others")},
        "flags": [{"kind": f.kind, "reason": f.reason} for f in item.flags],
        "others": [{"text": o.text, "author": o.author, "status": o.status} for o in item.others],
    }


def from_wire(item: dict[str, Any]) -> ReviewItem:
    """The item as a client reads the server's answer (fields it lacks: not shown)."""
    return ReviewItem(
        caption_id=int(item["caption_id"]),
        pair_id=int(item["pair_id"]),
        text=item.get("text") or "",
        status=item.get("status") or "submitted",
        author=item.get("author"),
        category=item.get("category") or "",
        reference_id=item.get("reference_id"),
        target_id=item.get("target_id"),
        flags=tuple(Flag(f["kind"], f["reason"]) for f in item.get("flags") or ()),
        others=tuple(OtherCaption(o["text"], o.get("author"), o["status"])
                     for o in item.get("others") or ()),
        reviewer=item.get("reviewer"),
        reject_reason=item.get("reject_reason"),
        lease_id=item.get("lease_id"),
        expires_at=item.get("expires_at"),
    )
