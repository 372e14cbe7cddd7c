"""The caption-review queue of the project open here: a ``ReviewSession`` behind the
``ReviewQueue`` interface (its order and rules are ``studio.captions.queue``'s; nothing is
held from others, so ``hold`` re-reads the caption and ``release`` has no lease to end).

A caption is described by ``studio.captions.review_item.describe``, as the team server
describes the captions it hands out: the same flags, other captions and earlier decision
whichever queue serves a reviewer.
"""

from __future__ import annotations

from studio.captions import queue
from studio.captions.review_item import describe
from studio.captions.writing_and_review import ReviewSession
from studio.errors import StudioError
from studio.store import Project
from studio.wording import count
from studio.work_queue.protocol import Progress
from studio.work_queue.review_protocol import (
    NO_CAPTION,
    NO_DECISION,
    NO_REASON,
    Decided,
    ReviewAction,
    ReviewItem,
)


def nothing_left(project: Project, reviewer: str) -> str | None:
    """Why nothing is offered when captions still wait: they are this reviewer's own."""
    own = queue.own_waiting(project, reviewer)
    if not own:
        return None
    if own == 1:
        return ("Nothing for you to review: the caption waiting for review is your own, "
                "and someone else must review it.")
    return (f"Nothing for you to review: the {count(own, 'caption')} waiting for review are "
            "your own, and someone else must review them.")


class LocalReviewQueue:
    def __init__(self, project: Project, reviewer: str, order: str = "pair") -> None:
        self.session = ReviewSession(project, reviewer)
        self.session.order = order
        self.project = project
        self.reviewer = reviewer
        self._item: ReviewItem | None = None
        self._why: str | None = None  # why nothing is offered

    # -- reading -----------------------------------------------------------------------

    @property
    def current(self) -> ReviewItem | None:
        caption_id = self.session.current
        if caption_id is None:
            return None
        if self._item is None or self._item.caption_id != caption_id:
            self._item = describe(self.project, caption_id)
        return self._item

    def _now(self) -> ReviewItem | None:
        """The caption after a move, read afresh; with none, learn why."""
        self._item = None
        item = self.current
        self._why = nothing_left(self.project, self.reviewer) if item is None else None
        return item

    def can(self, action: ReviewAction) -> str | None:
        if action == "next" and self.session.current is None:
            return self._why
        if action in ("accept", "reject", "skip") and self.session.current is None:
            return NO_CAPTION
        if action == "undo_decision" and not self.session.decisions:
            return NO_DECISION
        return None

    def progress(self) -> Progress:
        return Progress(done=queue.reviewed_by(self.project, self.reviewer),
                        remaining=self.session.remaining())

    # -- moving ------------------------------------------------------------------------

    def take_next(self) -> ReviewItem | None:
        if self.session.current is None:
            self.session.start()
        return self._now()

    def reorder(self, order: str) -> ReviewItem | None:
        """Review in another order (``queue.REVIEW_ORDERS``), from its first caption."""
        self.session.order = order
        self.session.start()
        return self._now()

    def step(self, forward: bool) -> ReviewItem | None:
        self.session.step(forward)
        return self._now()

    def hold(self) -> ReviewItem | None:
        """Nothing is leased here: the caption as it is now (a flag threshold or another
        person may have changed what is shown)."""
        return self._now()

    def release(self) -> None:
        self.session.go_to(None)
        self._item = None

    def skip(self) -> ReviewItem | None:
        self.session.skip()
        return self._now()

    # -- decisions ---------------------------------------------------------------------

    def accept(self, text: str | None = None) -> Decided:
        caption_id = self.session.current
        if caption_id is None:
            raise StudioError(NO_CAPTION)
        self.session.accept(text)
        self._now()
        return Decided(caption_id, "accept")

    def reject(self, reason: str) -> Decided:
        caption_id = self.session.current
        if caption_id is None:
            raise StudioError(NO_CAPTION)
        if not reason.strip():
            raise StudioError(NO_REASON)
        self.session.reject(reason)
        self._now()
        return Decided(caption_id, "reject")

    def outcome(self, decided: Decided) -> Decided:
        return decided  # the project answers at once: nothing waits

    def undo_last_decision(self) -> ReviewItem | None:
        if self.session.undo_last_decision() is None:
            return None
        return self._now()
