"""The caption-review queue of a team server: its ``Client`` and outbox behind the
``ReviewQueue`` interface.

Accepts and rejects go through the outbox: they are kept on this computer first and
applied once by the server, so a reviewer whose server stops can still decide the caption
held, and the decision arrives when it answers again. What needs the server's answer now
(a new caption, Previous / Next, skipping, taking a decision back) is refused by ``can``
with the reason, and tried again by the next call. The server describes each caption as
the desktop does (author, automatic flags, the pair's other captions: ``review_item``).
"""

from __future__ import annotations

from typing import Any, Literal

from studio.captions.review_item import ReviewItem, from_wire
from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.work_queue.remote_base import RemoteQueue, refusal
from studio.work_queue.review_protocol import (
    NO_CAPTION,
    NO_DECISION,
    NO_REASON,
    Decided,
)

OFFLINE = {
    "next": "The team server does not answer: your next caption comes as soon as it "
    "answers; your decisions wait on this computer.",
    "previous": "Previous and Next need the team server, which does not answer; your "
    "decisions wait on this computer.",
    "skip": "Skipping gives the caption back to the team, which needs the team server; "
    "decide it, or wait until the server answers.",
    "undo_decision": "Taking a decision back needs the team server, which does not answer; "
    "your decisions wait on this computer.",
    "progress": "The team server does not answer: these figures are the last it gave.",
}


class RemoteReviewQueue(RemoteQueue[ReviewItem]):
    OFFLINE = OFFLINE
    NO_ITEM = NO_CAPTION
    NEEDS_ITEM = ("accept", "reject", "skip")
    UNDO = "undo_decision"
    NOTHING_TO_UNDO = NO_DECISION

    def __init__(self, client: Client, reviewer: str) -> None:
        super().__init__(client)
        self.reviewer = reviewer
        self._decisions: list[ReviewItem] = []  # each decided caption as handed, to undo

    def _item(self, answer: dict[str, Any] | None) -> ReviewItem | None:
        return None if answer is None else from_wire(answer)

    def _key(self, item: ReviewItem) -> int:
        return item.caption_id

    def _next(self) -> dict[str, Any] | None:
        return self.client.next_review()

    def _step_from(self, here: int, forward: bool) -> dict[str, Any] | None:
        return self.client.step_review(here, forward)

    def _back_to(self, last: int) -> dict[str, Any] | None:
        return self.client.hold_review(last)

    def _figures(self) -> dict[str, int]:
        return self.client.review_progress()

    def _undoable(self) -> int:
        return len(self._decisions)

    def skip(self) -> ReviewItem | None:
        if self._skip_leased() is None:
            return None
        return self._move_on()

    # -- decisions (through the outbox) ------------------------------------------------

    def accept(self, text: str | None = None) -> Decided:
        item = self._current
        if item is None:
            raise StudioError(NO_CAPTION)
        edited = " ".join((text or "").split())
        return self._decide(item, "accept", None, edited if edited and edited != item.text
                            else None)

    def reject(self, reason: str) -> Decided:
        item = self._current
        if item is None:
            raise StudioError(NO_CAPTION)
        if not reason.strip():
            raise StudioError(NO_REASON)
        return self._decide(item, "reject", reason.strip(), None)

    def _decide(self, item: ReviewItem, decision: Literal["accept", "reject"],
                reason: str | None, text: str | None) -> Decided:
        uid = self.client.decide(item.caption_id, decision, reason=reason, text=text)
        answer = self._sent(uid)
        refused = None if answer is None else refusal(answer)
        if refused is None:
            self._decisions.append(item)
        self._move_on()
        return Decided(item.caption_id, decision, waiting=answer is None, refused=refused,
                       receipt=uid)

    def outcome(self, decided: Decided) -> Decided:
        return self._outcome(decided)

    def undo_last_decision(self) -> ReviewItem | None:
        if not self._decisions:
            return None
        if not self.online:
            raise StudioError(OFFLINE["undo_decision"])
        item = self._decisions[-1]
        answer = self._sent(self.client.undo_decision(item.caption_id, item.text, item.status,
                                                      item.reject_reason))
        self._decisions.pop()
        if answer is None:  # it waits in the outbox and is applied when the server answers
            raise StudioError(OFFLINE["undo_decision"])
        refused = refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        try:
            return self._go(self._item(self._ask(self.client.hold_review, item.caption_id)))
        except Offline:
            return self._current
