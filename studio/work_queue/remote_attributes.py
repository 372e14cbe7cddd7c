"""The attribute review queue of a team server: its ``Client`` and outbox behind the
``AttributeReviewQueue`` interface.

The server hands out an image with undecided suggestions under a lease (renewed while it
is on screen: ``hold``). One image's decisions go through the outbox as one edit: they are
kept on this computer first and applied once by the server, in one transaction, so a
person whose server stops can still decide the image held, and the decisions arrive when
it answers. What needs the server's answer now (a new image, skipping, the figures) is
refused by ``can`` with the reason, and tried again by the next call. The server hands
images one at a time and holds no other: there is no Previous/Next here (``can`` says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studio.errors import StudioError
from studio.server.client import Client
from studio.work_queue.attribute_protocol import (
    ALL_DECIDED,
    NO_IMAGE,
    AttributeImage,
    AttributesDecided,
    Suggestion,
    checked_decisions,
    place,
)
from studio.work_queue.remote_base import RemoteQueue, refusal

OFFLINE = {
    "next": "The team server does not answer: your decisions wait on this computer, and "
    "the next image comes as soon as it answers.",
    "skip": "Skipping gives the image back to the team, which needs the team server; "
    "decide it, or wait until the server answers.",
    "progress": "The team server does not answer: these figures are the last it gave.",
}
NO_STEP = ("The team server hands out one image at a time: there is no Previous or Next "
           "in team work.")


def from_wire(answer: dict[str, Any]) -> AttributeImage:
    """The server's image (``studio.server.attribute_queue``) with the person's figures."""
    suggestions = tuple(
        Suggestion(str(s["attribute"]), str(s["type"]), str(s["status"]),
                   None if s.get("confidence") is None else float(s["confidence"]))
        for s in answer["attributes"])
    position, size = place(answer["figures"])
    return AttributeImage(str(answer["image_id"]), suggestions, position, size,
                          int(answer["lease_id"]), float(answer["expires_at"]))


class RemoteAttributeQueue(RemoteQueue[AttributeImage]):
    OFFLINE = OFFLINE
    NO_ITEM = NO_IMAGE
    NEEDS_ITEM = ("decide", "skip")

    def __init__(self, client: Client, person: str) -> None:
        super().__init__(client)
        self.person = person
        self._keys: dict[str, int] = {}  # image id -> a number, as RemoteQueue keys items
        self._why: str | None = None  # why nothing is offered

    def _item(self, answer: dict[str, Any] | None) -> AttributeImage | None:
        return None if answer is None else from_wire(answer)

    def _key(self, item: AttributeImage) -> int:
        return self._keys.setdefault(item.image_id, len(self._keys) + 1)

    def _next(self) -> dict[str, Any] | None:
        answer = self.client.next_attributes()
        if answer is not None:
            answer["figures"] = self.client.attribute_progress()
        return answer

    def _figures(self) -> dict[str, int]:
        return self.client.attribute_progress()

    def _undoable(self) -> int:
        return 0  # decisions are taken back on the project's own Attributes pane

    # -- reading -----------------------------------------------------------------------

    def can(self, action: str) -> str | None:
        if action == "previous":
            return NO_STEP
        why = super().can(action)
        if why is None and action == "next" and self._current is None:
            return self._why
        return why

    # -- moving ------------------------------------------------------------------------

    def _showing(self, item: AttributeImage | None) -> AttributeImage | None:
        """After asking: with nothing handed while the server answers, all is decided."""
        self._why = ALL_DECIDED if item is None and self.online else None
        return item

    def take_next(self) -> AttributeImage | None:
        return self._showing(super().take_next())

    def step(self, forward: bool) -> AttributeImage | None:
        """No Previous here; Next with nothing on screen asks for the next image."""
        if forward and self._current is None:
            return self.take_next()
        return self._current

    def skip(self) -> AttributeImage | None:
        if self._skip_leased() is None:
            return None
        return self._showing(self._move_on())

    # -- decisions (through the outbox) ------------------------------------------------

    def decide(self, decisions: Mapping[str, str]) -> AttributesDecided:
        kept = checked_decisions(self._current, decisions)
        assert self._current is not None
        image_id = self._current.image_id
        uid = self.client.decide_attributes(image_id, kept, send=self.online)
        answer = self._sent(uid)
        refused = None if answer is None else refusal(answer)
        if refused is not None:
            raise StudioError(refused)
        self._showing(self._move_on())
        return AttributesDecided(image_id, kept, waiting=answer is None, receipt=uid)

    def outcome(self, decided: AttributesDecided) -> AttributesDecided:
        return self._outcome(decided)
