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
    Rejection,
    Submitted,
    WorkItem,
)
from studio.work_queue.remote_base import RemoteQueue, refusal

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


class RemoteCaptionQueue(RemoteQueue[WorkItem]):
    OFFLINE = OFFLINE
    NO_ITEM = NO_PAIR
    NEEDS_ITEM = ("draft", "submit", "skip", "flag")
    UNDO = "undo_save"
    NOTHING_TO_UNDO = NOTHING_TO_UNDO

    def __init__(self, client: Client, author: str) -> None:
        super().__init__(client)
        self.author = author
        # Submissions of this session that can be taken back: (pair, text, status before).
        self._saves: list[tuple[int, str, str]] = []

    def _item(self, answer: dict[str, Any] | None) -> WorkItem | None:
        return _item(answer)

    def _key(self, item: WorkItem) -> int:
        return item.pair_id

    def _next(self) -> dict[str, Any] | None:
        return self.client.next_item()

    def _step_from(self, here: int, forward: bool) -> dict[str, Any] | None:
        return self.client.step(here, forward)

    def _back_to(self, last: int) -> dict[str, Any] | None:
        return self.client.step(last + 1, False)

    def _figures(self) -> dict[str, int]:
        return self.client.own_progress()

    def _undoable(self) -> int:
        return len(self._saves)

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
            raise StudioError(refusal(answer) or "The server did not keep the draft.")
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
        refused = None if answer is None else refusal(answer)
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
        return self._outcome(submitted)

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
        refused = refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        try:
            return self._go(_item(self._ask(self.client.hold, pair_id)))
        except Offline:
            return self._current
