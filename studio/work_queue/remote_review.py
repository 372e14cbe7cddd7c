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
from studio.work_queue.protocol import Progress
from studio.work_queue.review_protocol import (
    NO_CAPTION,
    NO_DECISION,
    NO_REASON,
    Decided,
    ReviewAction,
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


def _item(item: dict[str, Any] | None) -> ReviewItem | None:
    return None if item is None else from_wire(item)


def _refusal(answer: tuple[int, Any]) -> str | None:
    if answer[0] < 300:
        return None
    body = answer[1]
    return str(body.get("error") if isinstance(body, dict) else body)


class RemoteReviewQueue:
    def __init__(self, client: Client, reviewer: str) -> None:
        self.client = client
        self.reviewer = reviewer
        self.online = True  # what the last call to the server learnt
        self._current: ReviewItem | None = None
        self._last: int | None = None  # the caption before, to step back from "all done"
        self._decisions: list[ReviewItem] = []  # each decided caption as handed, to undo
        self._progress = Progress(0, 0)

    @property
    def current(self) -> ReviewItem | None:
        return self._current

    def can(self, action: ReviewAction) -> str | None:
        if action == "undo_decision" and not self._decisions:
            return NO_DECISION
        if not self.online and action in OFFLINE:
            return OFFLINE[action]
        if action in ("accept", "reject", "skip") and self._current is None:
            return NO_CAPTION
        return None

    # -- the server's answers ----------------------------------------------------------

    def _ask(self, call: Any, *args: Any) -> Any:
        """One call that needs the server; ``Offline`` is remembered and raised."""
        try:
            answer = call(*args)
        except Offline:
            self.online = False
            raise
        self.online = True
        return answer

    def _sent(self, uid: str) -> tuple[int, Any] | None:
        """The answer to an edit just kept (None: it waits in the outbox)."""
        answer = self.client.answer(uid)
        self.online = answer is not None
        return answer

    def _go(self, item: ReviewItem | None) -> ReviewItem | None:
        if self._current is not None:
            self._last = self._current.caption_id
        self._current = item
        return item

    def _move_on(self) -> ReviewItem | None:
        """After a decision or a skip: the next caption, when the server can hand it."""
        self._go(None)
        try:
            return self._go(_item(self._ask(Client.next_review, self.client)))
        except Offline:
            return None

    # -- reading and moving ------------------------------------------------------------

    def progress(self) -> Progress:
        try:
            figures = self._ask(Client.review_progress, self.client)
        except Offline:
            return self._progress
        self._progress = Progress(int(figures["done"]), int(figures["remaining"]))
        return self._progress

    def take_next(self) -> ReviewItem | None:
        try:
            item = _item(self._ask(Client.next_review, self.client))
        except Offline:
            return self._current
        if self._current is None or item is None or item.caption_id != self._current.caption_id:
            return self._go(item)
        self._current = item
        return item

    def step(self, forward: bool) -> ReviewItem | None:
        try:
            if self._current is not None:
                answer = self._ask(Client.step_review, self.client,
                                   self._current.caption_id, forward)
            elif forward or self._last is None:
                return self.take_next()
            else:  # all reviewed: back to the last caption seen
                answer = self._ask(Client.hold_review, self.client, self._last)
        except Offline:
            return self._current
        item = _item(answer)
        return self._go(item) if item is not None else self._current

    def hold(self) -> ReviewItem | None:
        item = self._current
        if item is None or item.lease_id is None:
            return item
        try:
            lease = self._ask(Client.renew, self.client, item.lease_id)
        except Offline:
            return item
        except StudioError:  # the lease expired meanwhile: the server says what is held
            return self.take_next()
        self._current = ReviewItem(**{**item.__dict__, "expires_at": lease["expires_at"]})
        return self._current

    def release(self) -> None:
        """Stop holding the current caption: its lease is no longer renewed and expires."""
        self._go(None)

    def skip(self) -> ReviewItem | None:
        item = self._current
        if item is None:
            return None
        if item.lease_id is not None:
            try:
                self._ask(Client.skip, self.client, item.lease_id)
            except Offline:
                raise StudioError(OFFLINE["skip"]) from None
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
        refused = None if answer is None else _refusal(answer)
        if refused is None:
            self._decisions.append(item)
        self._move_on()
        return Decided(item.caption_id, decision, waiting=answer is None, refused=refused,
                       receipt=uid)

    def outcome(self, decided: Decided) -> Decided:
        if not decided.waiting or decided.receipt is None:
            return decided
        answer = self.client.answer(decided.receipt)
        if answer is None:
            return decided
        return Decided(decided.caption_id, decided.decision, refused=_refusal(answer),
                       receipt=decided.receipt)

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
        refused = _refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        try:
            return self._go(_item(self._ask(Client.hold_review, self.client, item.caption_id)))
        except Offline:
            return self._current
