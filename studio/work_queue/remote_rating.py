"""The rating queue of a team server: its ``Client`` and outbox behind the ``RatingQueue``
interface.

Rating items are dealt per rater when the coordinator draws a sample, so there is no
lease: the server's "next" is the rater's first pending item. Scores, notes and finishes
go through the outbox: they are kept on this computer first and applied once by the
server, so a rater whose server stops can still score the item on screen, and the scores
arrive when it answers. What needs the server's answer now (the next item, the samples
and their figures) is refused by ``can`` with the reason, and tried again by the next
call; the figures are then the last the server gave.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from studio.errors import StudioError
from studio.server.client import Client, Offline
from studio.work_queue.rating_protocol import (
    NO_ITEM,
    FinalStatus,
    Finished,
    Progress,
    RatingCard,
    RatingTurn,
    checked_finish,
    checked_score,
    first_with_work,
    nothing_left,
)
from studio.work_queue.remote_base import RemoteQueue, refusal

OFFLINE = {
    "next": "The team server does not answer: your scores wait on this computer, and the "
    "next turn comes as soon as it answers.",
    "progress": "The team server does not answer: these figures are the last it gave.",
}
NONE_YET = Progress(0, 0, 0, 0, 0)


def _turn(wire: dict[str, Any]) -> RatingTurn:
    return RatingTurn(int(wire["index"]), str(wire["reference_id"]), str(wire["target_id"]),
                      str(wire["text"]))


def from_wire(answer: dict[str, Any]) -> RatingCard:
    """The server's blind item (``studio.server.ratings.blind``) as a rating card."""
    return RatingCard(int(answer["assignment_id"]), int(answer["position"]),
                      int(answer["queue_size"]),
                      tuple(_turn(turn) for turn in answer["history"]), _turn(answer["turn"]),
                      dict(answer["scores"]), str(answer.get("note") or ""),
                      str(answer["status"]))


class RemoteRatingQueue(RemoteQueue[RatingCard]):
    OFFLINE = OFFLINE
    NO_ITEM = NO_ITEM
    NEEDS_ITEM = ("score", "finish")

    def __init__(self, client: Client, rater: str, sample: str = "") -> None:
        super().__init__(client)
        self.rater = rater
        self._sample = sample
        self._samples: dict[str, Progress] = {}  # the last figures the server gave
        self._why: str | None = None  # why nothing is offered

    def _item(self, answer: dict[str, Any] | None) -> RatingCard | None:
        return None if answer is None else from_wire(answer)

    def _key(self, item: RatingCard) -> int:
        return item.assignment_id

    def _next(self) -> dict[str, Any] | None:
        return self.client.next_rating(self._sample) if self._sample else None

    def _undoable(self) -> int:
        return 0  # a finished item is not taken back here

    def _listed(self) -> dict[str, Progress]:
        self.client.flush()  # what waits goes out first, so the figures are current
        return {str(s["name"]): Progress(int(s["total"]), int(s["pending"]), int(s["done"]),
                                         int(s["skipped"]), int(s["flagged"]))
                for s in self.client.rating_samples()}

    # -- reading -----------------------------------------------------------------------

    @property
    def sample(self) -> str:
        return self._sample

    def can(self, action: str) -> str | None:
        why = super().can(action)
        if why is None and action == "next" and self._current is None:
            return self._why
        return why

    def samples(self) -> dict[str, Progress]:
        """Asked only while the server answers (the next item asks it again first); else
        the last figures it gave."""
        if self.online:
            with contextlib.suppress(Offline):
                self._samples = self._ask(self._listed)
        return dict(self._samples)

    def progress(self) -> Progress:  # type: ignore[override]  # a rater's figures are richer
        return self.samples().get(self._sample, NONE_YET)

    # -- moving ------------------------------------------------------------------------

    def choose(self, sample: str) -> None:
        self._sample = sample
        self._why = None
        self._go(None)

    def take_next(self) -> RatingCard | None:
        self._why = None
        if not self._sample:
            try:
                self._samples = self._ask(self._listed)
            except Offline:
                return self._current
            self._sample = first_with_work(self._samples)
        item = super().take_next()
        if item is None and self.online:
            self._why = nothing_left(self.samples(), self._sample)
        return item

    # -- scoring (through the outbox) --------------------------------------------------

    def _held(self) -> RatingCard:
        if self._current is None:
            raise StudioError(NO_ITEM)
        return self._current

    def _kept(self, uid: str) -> tuple[int, Any] | None:
        """The server's answer to an edit just kept; ``StudioError`` when it refused it."""
        answer = self._sent(uid)
        refused = None if answer is None else refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        return answer

    def score(self, key: str, value: int | None) -> RatingCard:
        held = self._held()
        value = checked_score(key, value)
        self._kept(self.client.save_scores(held.assignment_id, {key: value}, None,
                                           send=self.online))
        self._current = replace(held, scores={**held.scores, key: value})
        return self._current

    def keep_note(self, note: str) -> RatingCard:
        held = self._held()
        self._kept(self.client.save_scores(held.assignment_id, {}, note.strip(),
                                           send=self.online))
        self._current = replace(held, note=note.strip())
        return self._current

    def finish(self, status: FinalStatus, note: str | None = None) -> Finished:
        held = checked_finish(self._current, status)
        uid = self.client.set_rating_status(held.assignment_id, status,
                                            None if note is None else note.strip(),
                                            send=self.online)
        answer = self._sent(uid)
        self._go(None)
        self.take_next()
        return Finished(held.assignment_id, status, waiting=answer is None,
                        refused=None if answer is None else refusal(answer), receipt=uid)

    def outcome(self, finished: Finished) -> Finished:
        return self._outcome(finished)
