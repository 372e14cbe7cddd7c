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
from dataclasses import replace
from typing import Any, cast

from studio.captions import queue as caption_queue
from studio.captions import store as caption_store
from studio.captions.records import CaptionStatus
from studio.captions.review_item import describe, to_wire
from studio.errors import StudioError
from studio.server import queue
from studio.server.edits import apply_once
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.locks import lock_pair_of_caption, lock_row
from studio.store.repos import server as server_repo
from studio.store.repos import server_queues as queues_repo

KIND = server_repo.REVIEW


def _item(project: Project, lease: dict[str, Any]) -> dict[str, Any]:
    """The caption a lease holds, as the desktop reviewer sees it (its author, automatic
    flags, the pair's other captions, an earlier decision), with the lease."""
    item = to_wire(describe(project, int(lease["item_id"])))
    return {**item, "lease_id": int(lease["id"]), "expires_at": float(lease["expires_at"])}


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
    """The server's rules for deciding or holding a caption (raised as ``ApiError``:
    nothing is written or kept): written by someone else, submitted or decided by this
    reviewer, held by no one else. The caption is locked first, so two reviewers deciding at once take turns and the second reads the
    first's decision (PostgreSQL; SQLite has one writer already)."""
    lock_pair_of_caption(project, caption_id)  # the pair first, as every writer on it
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


def hold(project: Project, who: Identity, caption_id: int, lease_seconds: float) -> dict[str, Any]:
    """Hold this caption for review (Previous/Next, a decision taken back): the review
    lease held on another caption is let go, not skipped. A caption this reviewer may
    decide: written by someone else, submitted or decided by them, held by no one else."""
    now = time.time()
    with project.change(who.name, "lease", "server_lease", kinds=()) as record:
        server_repo.drop_expired(project, now)
        _check_may_decide(project, who, caption_id)
        held = server_repo.held_lease(project, KIND, who.name, now)
        lease = queue.take_lease(project, who, KIND, caption_id, "", held,
                                 now + lease_seconds, record)
    return _item(project, lease)  # its flags are read after the commit


def step(project: Project, who: Identity, here: int, forward: bool,
         lease_seconds: float) -> dict[str, Any] | None:
    """Previous or next caption from ``here`` among those to review or reviewed by this
    person (the desktop's ``step_review``, pair order), held as ``hold`` holds it."""
    neighbour = caption_queue.step_review(project, who.name, here, forward)
    return None if neighbour is None else hold(project, who, neighbour, lease_seconds)


def undo(project: Project, who: Identity, caption_id: int, uid: str, text: str, status: str,
         reason: str | None) -> tuple[int, dict[str, Any]]:
    """Take back this reviewer's decision on the caption (applied once per ``uid``): it
    returns to ``text`` and ``status`` as the reviewer was handed it. Refused when
    someone else decided it since (the store's rule)."""

    def work() -> dict[str, Any]:
        try:
            current = caption_store.get_caption(project, caption_id)
        except StudioError:
            raise ApiError(404, f"Caption {caption_id} does not exist.") from None
        decided = status != "submitted"
        before = replace(current, text=" ".join(text.split()), status=cast(CaptionStatus, status),
                         reject_reason=reason if status == "rejected" else None,
                         reviewer=who.name if decided else None,
                         reviewed_at=current.reviewed_at if decided else None)
        return _answer(caption_store.undo_review(project, caption_id, who.name, before))

    return apply_once(project, who, uid, work, what=f"undo decision {caption_id}")


def progress(project: Project, who: Identity) -> dict[str, int]:
    """This reviewer's figures: captions decided, and captions by others still waiting."""
    done = caption_queue.reviewed_by(project, who.name)
    remaining = caption_queue.review_remaining(project, who.name)
    return {"done": done, "remaining": remaining, "total": done + remaining}
