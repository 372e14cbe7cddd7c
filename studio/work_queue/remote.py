"""The caption-writing queue of a team server: its ``Client`` and outbox behind the
``WorkQueue`` interface.

Edits go through the outbox (drafts, submissions, skips, flags, saves taken back): they
are kept on this computer first and applied once by the server, so a person whose server
stops keeps writing the pair they hold, can submit it, skip it or flag it, and the edits
arrive when it answers again. What needs the server's answer now (a new pair, Previous /
Next, taking a save back) is refused by ``can`` with the reason, and tried again by the
next call. A lease the person no longer renews (``release``) simply expires: the server
has no "give back without skipping" of its own, and a lease's end is that.
"""

from __future__ import annotations

from typing import Any

from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.work_queue.protocol import (
    NO_PAIR,
    NOTHING_TO_UNDO,
    Action,
    Progress,
    Rejection,
    Submitted,
    WorkItem,
)

OFFLINE = {
    "next": "The team server does not answer: your next pair comes as soon as it answers; "
    "your edits wait on this computer.",
    "previous": "Previous and Next need the team server, which does not answer; your "
    "edits wait on this computer.",
    "undo_save": "Taking a save back needs the team server, which does not answer; your "
    "edits wait on this computer.",
    "progress": "The team server does not answer: these figures are the last it gave.",
}


def _item(item: dict[str, Any] | None) -> WorkItem | None:
    if item is None:
        return None
    rejected = item.get("rejected")
    return WorkItem(
        pair_id=int(item["pair_id"]),
        text=item.get("text") or "",
        status=item.get("status"),
        category=item.get("category") or "",
        reference_id=item.get("reference_id"),
        target_id=item.get("target_id"),
        rejected=(
            Rejection(rejected["text"], rejected.get("reason") or "", rejected.get("reviewer"))
            if rejected
            else None
        ),
        lease_id=item.get("lease_id"),
        expires_at=item.get("expires_at"),
    )


def _refusal(answer: tuple[int, Any]) -> str | None:
    if answer[0] < 300:
        return None
    body = answer[1]
    return str(body.get("error") if isinstance(body, dict) else body)


class RemoteCaptionQueue:
    def __init__(self, client: Client, author: str) -> None:
        self.client = client
        self.author = author
        self.online = True  # what the last call to the server learnt
        self._current: WorkItem | None = None
        self._last: int | None = None  # the pair before, to step back from "all done"
        # Submissions of this session that can be taken back: (pair, text, status before).
        self._saves: list[tuple[int, str, str]] = []
        self._progress = Progress(0, 0)

    @property
    def current(self) -> WorkItem | None:
        return self._current

    def can(self, action: Action) -> str | None:
        if action == "undo_save" and not self._saves:
            return NOTHING_TO_UNDO
        if not self.online and action in OFFLINE:
            return OFFLINE[action]
        if action in ("draft", "submit", "skip", "flag") and self._current is None:
            return NO_PAIR
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

    def _go(self, item: WorkItem | None) -> WorkItem | None:
        if self._current is not None:
            self._last = self._current.pair_id
        self._current = item
        return item

    def _move_on(self) -> WorkItem | None:
        """After a submit, skip or flag: the next pair, when the server can hand it."""
        self._go(None)
        try:
            return self._go(_item(self._ask(Client.next_item, self.client)))
        except Offline:
            return None

    # -- reading and moving ------------------------------------------------------------

    def progress(self) -> Progress:
        try:
            figures = self._ask(Client.own_progress, self.client)
        except Offline:
            return self._progress
        self._progress = Progress(int(figures["done"]), int(figures["remaining"]))
        return self._progress

    def take_next(self) -> WorkItem | None:
        try:
            item = _item(self._ask(Client.next_item, self.client))
        except Offline:
            return self._current
        if self._current is None or item is None or item.pair_id != self._current.pair_id:
            return self._go(item)
        self._current = item
        return item

    def step(self, forward: bool) -> WorkItem | None:
        if self._current is not None:
            here = self._current.pair_id
        elif forward or self._last is None:
            return self.take_next()
        else:
            here = self._last + 1
        try:
            item = _item(self._ask(Client.step, self.client, here, forward))
        except Offline:
            return self._current
        return self._go(item) if item is not None else self._current

    def hold(self) -> WorkItem | None:
        item = self._current
        if item is None or item.lease_id is None:
            return item
        try:
            lease = self._ask(Client.renew, self.client, item.lease_id)
        except Offline:
            return item
        except StudioError:  # the lease expired meanwhile: the server says what is held
            return self.take_next()
        self._current = WorkItem(**{**item.__dict__, "expires_at": lease["expires_at"]})
        return self._current

    def release(self) -> None:
        """Stop holding the current pair: its lease is no longer renewed and expires."""
        self._go(None)

    # -- edits (through the outbox) ----------------------------------------------------

    def save_draft(
        self, text: str, pair_id: int | None = None, leaving: bool = False
    ) -> WorkItem | None:
        item = self._current
        pair_id = (item.pair_id if item else None) if pair_id is None else pair_id
        if pair_id is None:
            return None
        if not text.strip():
            return item if item and item.pair_id == pair_id else None
        status = item.status if item and item.pair_id == pair_id else None
        if status == "accepted":
            return item
        answer = self._sent(self.client.save_draft(pair_id, text))
        kept = "submitted" if status == "submitted" else "draft"
        if answer is not None and answer[0] < 300:
            text, kept = answer[1]["text"], answer[1]["status"]
        elif answer is not None:
            raise StudioError(_refusal(answer) or "The server did not keep the draft.")
        if item is None or item.pair_id != pair_id:
            return WorkItem(pair_id, text, kept)
        self._current = WorkItem(**{**item.__dict__, "text": text, "status": kept})
        return self._current

    def submit(self, text: str) -> Submitted:
        item = self._current
        if item is None:
            raise StudioError(NO_PAIR)
        if not text.strip():
            raise StudioError("Write the caption first; Skip leaves the pair to others.")
        uid = self.client.submit(item.pair_id, text)
        answer = self._sent(uid)
        refused = None if answer is None else _refusal(answer)
        if refused is None and item.status != "accepted":
            # as the project keeps it: a submitted caption goes back to its text, anything
            # else to a draft of the text submitted (the draft is kept before submitting)
            if item.status == "submitted":
                self._saves.append((item.pair_id, item.text, "submitted"))
            else:
                self._saves.append((item.pair_id, " ".join(text.split()), "draft"))
        self._move_on()
        return Submitted(item.pair_id, waiting=answer is None, refused=refused, receipt=uid)

    def outcome(self, submitted: Submitted) -> Submitted:
        if not submitted.waiting or submitted.receipt is None:
            return submitted
        answer = self.client.answer(submitted.receipt)
        if answer is None:
            return submitted
        return Submitted(submitted.pair_id, refused=_refusal(answer), receipt=submitted.receipt)

    def skip(self) -> WorkItem | None:
        if self._current is None:
            return None
        self._sent(self.client.skip_pair(self._current.pair_id))
        return self._move_on()

    def flag(self, reason: str = "") -> WorkItem | None:
        if self._current is None:
            return None
        self._sent(self.client.flag_pair(self._current.pair_id, reason.strip()))
        return self._move_on()

    def undo_last_save(self) -> WorkItem | None:
        if not self._saves:
            return None
        if not self.online:
            raise StudioError(OFFLINE["undo_save"])
        pair_id, text, status = self._saves[-1]
        answer = self._sent(self.client.undo_save(pair_id, text, status))
        if answer is None:  # it waits in the outbox and is applied when the server answers
            self._saves.pop()
            raise StudioError(OFFLINE["undo_save"])
        self._saves.pop()
        refused = _refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        try:
            return self._go(_item(self._ask(Client.hold, self.client, pair_id)))
        except Offline:
            return self._current
