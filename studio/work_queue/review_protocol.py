"""The caption-review queue, Qt-free: what a reviewer view asks of its work, local or team.

As with the writing queue (``protocol``), every method but ``current`` and ``can`` may
block (the database, the network): a view calls them from a worker lane and applies the
answer on its UI thread. ``accept``, ``reject`` and ``skip`` move on to the next caption
when they can; when they cannot (the team server does not answer), ``current`` is None and
``can("next")`` says why. A decision is never lost: it is kept in the project, or waits in
the client's outbox until the server answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args, runtime_checkable

from studio.captions.flags import Flag
from studio.captions.review_item import OtherCaption, ReviewItem
from studio.work_queue.protocol import Progress

ReviewAction = Literal["next", "previous", "skip", "accept", "reject", "undo_decision",
                       "progress"]
REVIEW_ACTIONS: tuple[str, ...] = get_args(ReviewAction)
DECIDED = {"accept": "accepted", "reject": "rejected"}
NO_CAPTION = "There is no caption to review."
NO_REASON = "Say why the caption is rejected; the author will see the reason."
NO_DECISION = "No accept or reject in this session to undo."
ALL_REVIEWED = "Nothing to review: every submitted caption has been reviewed."


@dataclass(frozen=True)
class Decided:
    """What became of an accept or reject: kept (``waiting``: on this computer until the
    server answers) or refused after the fact (``refused``: the server's words, e.g.
    someone decided the caption first). A refusal known at once raises ``StudioError``."""

    caption_id: int
    decision: Literal["accept", "reject"]
    waiting: bool = False
    refused: str | None = None
    receipt: str | None = field(default=None, compare=False)


@runtime_checkable
class ReviewQueue(Protocol):
    """A reviewer's queue of submitted captions (``reviewer``: whose decisions)."""

    reviewer: str

    @property
    def current(self) -> ReviewItem | None:
        """The caption on screen; None: none (``can('next')`` says why). Does not block."""
        ...

    def can(self, action: ReviewAction) -> str | None:
        """None when ``action`` can be done now; else the reason, in one line. Does not
        block."""
        ...

    def take_next(self) -> ReviewItem | None:
        """The caption held, else the next one someone else wrote; None: nothing (or it
        cannot ask: ``can('next')``)."""
        ...

    def step(self, forward: bool) -> ReviewItem | None:
        """Previous or next among the captions to review or reviewed by this person; stays
        where it is when there is none that way."""
        ...

    def hold(self) -> ReviewItem | None:
        """Keep holding the current caption (renew its lease); the caption as it is now."""
        ...

    def release(self) -> None:
        """Stop holding the current caption without skipping it."""
        ...

    def skip(self) -> ReviewItem | None:
        """Leave the current caption undecided and move on; the next caption."""
        ...

    def accept(self, text: str | None = None) -> Decided:
        """Accept the current caption (with the reviewer's edited ``text``) and move on."""
        ...

    def reject(self, reason: str) -> Decided:
        """Reject the current caption with a reason the author sees, and move on."""
        ...

    def outcome(self, decided: Decided) -> Decided:
        """What became of a decision that waited: the same record while it still waits,
        else the server's answer. Does not call the server."""
        ...

    def undo_last_decision(self) -> ReviewItem | None:
        """Take back this session's last accept or reject: the caption is as it was and on
        screen again; None when there is nothing to take back."""
        ...

    def progress(self) -> Progress:
        """Captions this reviewer decided, and captions still waiting for review."""
        ...


def flag_line(flags: tuple[Flag, ...]) -> str:
    """The flags as the reviewer reads them, one a line."""
    return "\n".join(f"⚑ {flag.reason}" for flag in flags)


__all__ = ["ALL_REVIEWED", "DECIDED", "NO_CAPTION", "NO_DECISION", "NO_REASON",
           "REVIEW_ACTIONS", "Decided", "OtherCaption", "ReviewAction", "ReviewItem",
           "ReviewQueue", "flag_line"]
