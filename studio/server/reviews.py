"""Reviewing captions over the server: the next submitted caption with a lease, and the
reviewer's decision applied once per ``edit_uid``.

The rules are the desktop's (``studio.captions.store.review_caption``): reviewer ≠
author, a reject needs a reason, an edited text is checked like any caption. They are
checked inside the write transaction of the decision, as the server's own two: a caption
another reviewer holds is not theirs to decide, and one someone else already reviewed is
not decided again. A refusal of the server's own rules changes nothing (no answer is
kept, so the reviewer may send a new decision); a refusal of the store's rules is the
edit's answer, kept like any other.
"""

from __future__ import annotations

import time
from typing import Any

from studio.captions import store as caption_store
from studio.errors import StudioError
from studio.server import queue
from studio.server.edits import apply_once
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.locks import lock_row
from studio.store.repos import server as server_repo
from studio.store.repos import server_queues as queues_repo

KIND = server_repo.REVIEW


def _item(project: Project, lease: dict[str, Any]) -> dict[str, Any]:
    caption = caption_store.get_caption(project, int(lease["item_id"]))
    pair = server_repo.pair_images(project, caption.pair_id)
    return {
        "lease_id": int(lease["id"]),
        "expires_at": float(lease["expires_at"]),
        "caption_id": caption.id,
        "pair_id": caption.pair_id,
        "reference_id": pair["reference_id"] if pair else None,
        "target_id": pair["target_id"] if pair else None,
        "category": pair["category"] if pair else "",
        "text": caption.text,
        "status": caption.status,
    }


def _still_submitted(project: Project, lease: dict[str, Any]) -> bool:
    try:
        return caption_store.get_caption(project, int(lease["item_id"])).status == "submitted"
    except StudioError:
        return False  # the caption (its pair) was deleted


def take_next(project: Project, who: Identity, lease_seconds: float) -> dict[str, Any] | None:
    """The caption this reviewer holds, or the next one written by someone else."""

    def pick(now: float) -> tuple[int, str] | None:
        caption_id = queues_repo.next_caption_to_review(project, who.name, now)
        return None if caption_id is None else (caption_id, "")

    return queue.take(project, who, KIND, lease_seconds, pick,
                      lambda lease: _item(project, lease),
                      lambda lease: _still_submitted(project, lease))


def _answer(caption: Any) -> dict[str, Any]:
    return {"caption_id": caption.id, "pair_id": caption.pair_id, "status": caption.status,
            "text": caption.text, "reject_reason": caption.reject_reason}


def _check_may_decide(project: Project, who: Identity, caption_id: int) -> None:
    """The server's rules (raised as ``ApiError``: nothing is written or kept). The caption
    is locked first, so two reviewers deciding at once take turns and the second reads the
    first's decision (PostgreSQL; SQLite has one writer already)."""
    lock_row(project, "captions", caption_id)
    try:
        caption = caption_store.get_caption(project, caption_id)
    except StudioError:
        raise ApiError(404, f"Caption {caption_id} does not exist.") from None
    if caption.author == who.name:
        raise ApiError(403, "You cannot review your own caption; ask for your next item.")
    if caption.status == "draft":
        raise ApiError(409, f"Caption {caption_id} is a draft; it cannot be reviewed yet.")
    if caption.status != "submitted" and caption.reviewer != who.name:
        raise ApiError(409, f"Caption {caption_id} was already reviewed by someone else.")
    if queues_repo.review_held_by_others(project, caption_id, who.name, time.time()):
        raise ApiError(409, f"Caption {caption_id} is held by another reviewer; "
                            "ask for your next item.")


def decide(
    project: Project, who: Identity, caption_id: int, uid: str, decision: str,
    reason: str, text: str | None,
) -> tuple[int, dict[str, Any]]:
    """Accept or reject once per ``uid``; reviewer ≠ author is checked in the same
    transaction as the decision (here and again by the store)."""

    def work() -> dict[str, Any]:
        _check_may_decide(project, who, caption_id)
        caption = caption_store.review_caption(project, caption_id, who.name, decision,
                                               reason, text)
        server_repo.release_item(project, KIND, caption_id, who.name)
        return _answer(caption)

    return apply_once(project, who, uid, work, what=f"decision {caption_id}")
