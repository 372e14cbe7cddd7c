"""The caption-writing queue, Qt-free: what a writer view asks of its work, local or team.

Every method but ``current`` and ``can`` may block (the database, the network): a view
calls them from a worker lane and applies the answer on its UI thread. ``submit``,
``skip`` and ``flag`` move on to the next item when they can; when they cannot (the team
server does not answer), ``current`` is None and ``can("next")`` says why. Nothing typed
is lost either way: a draft is kept in the project, or in the client's outbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args, runtime_checkable

Action = Literal["next", "previous", "draft", "submit", "skip", "flag", "undo_save", "progress"]
ACTIONS: tuple[str, ...] = get_args(Action)
STATUSES = (None, "draft", "submitted", "accepted")
NO_PAIR = "There is no pair to caption."
NOTHING_TO_UNDO = "Nothing saved in this session to undo."


@dataclass(frozen=True)
class Rejection:
    """This person's last rejected caption on the item's pair, and the reviewer's why."""

    text: str
    reason: str
    reviewer: str | None = None


@dataclass(frozen=True)
class WorkItem:
    """One pair to caption, as the person sees it: their own text on it and its status
    (None: nothing written yet); the lease when a team server holds it for them."""

    pair_id: int
    text: str = ""
    status: str | None = None
    category: str = ""
    reference_id: str | None = None
    target_id: str | None = None
    rejected: Rejection | None = None
    lease_id: int | None = None
    expires_at: float | None = None
    written: int | None = None  # live captions on the pair (None: not known here)
    needed: int | None = None  # how many the pair needs
    reviewer: str | None = None  # who accepted this person's caption, when known

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Unknown caption status {self.status!r}; one of {STATUSES}.")


@dataclass(frozen=True)
class Progress:
    """This person's pairs: captioned (submitted or accepted) and still to do."""

    done: int
    remaining: int

    @property
    def total(self) -> int:
        return self.done + self.remaining


@dataclass(frozen=True)
class Submitted:
    """What became of a submission: kept (``waiting``: on this computer until the server
    answers) or refused after the fact (``refused``: the server's words, e.g. the pair's
    quota filled meanwhile). A refusal known at once raises ``StudioError`` instead."""

    pair_id: int
    waiting: bool = False
    refused: str | None = None
    # what the queue needs to learn the answer later (``outcome``); not part of its value
    receipt: str | None = field(default=None, compare=False)


@runtime_checkable
class WorkQueue(Protocol):
    """A person's caption-writing queue (``author``: whose captions)."""

    author: str

    @property
    def current(self) -> WorkItem | None:
        """The item on screen (held for this person); None: none, ``can('next')`` says
        why when it is not simply all done. Does not block."""
        ...

    def can(self, action: Action) -> str | None:
        """None when ``action`` can be done now; else the reason, for the person. Does not
        block (it answers from what the queue last learnt)."""
        ...

    def take_next(self) -> WorkItem | None:
        """The item held, else where this person resumes (their latest draft), else the
        next that needs them; None: nothing (or it cannot ask: ``can('next')``)."""
        ...

    def step(self, forward: bool) -> WorkItem | None:
        """Previous or next among the pairs this person wrote or may write; stays where it
        is when there is none that way."""
        ...

    def hold(self) -> WorkItem | None:
        """Keep holding the current item (renew its lease); the item as it is now."""
        ...

    def release(self) -> None:
        """Stop holding the current item without skipping it (it stays in the queue)."""
        ...

    def save_draft(
        self, text: str, pair_id: int | None = None, leaving: bool = False
    ) -> WorkItem | None:
        """Keep what is typed for ``pair_id`` (default: the current item); an emptied text
        never overwrites the words kept. ``leaving``: the person moves on from the pair, and
        an emptied draft is not kept where the queue can drop it. The item as kept, or None
        when there is none."""
        ...

    def submit(self, text: str) -> Submitted:
        """Submit the current item's caption and move on to the next item."""
        ...

    def outcome(self, submitted: Submitted) -> Submitted:
        """What became of a submission that waited (``submitted.waiting``): the same record
        while it still waits, else the server's answer. Does not call the server."""
        ...

    def skip(self) -> WorkItem | None:
        """Leave the current item to others and move on; the next item."""
        ...

    def flag(self, reason: str = "") -> WorkItem | None:
        """Flag the current item for a coordinator (with a reason) and move on."""
        ...

    def undo_last_save(self) -> WorkItem | None:
        """Take back this session's last submission: the caption returns to how it was
        and its pair is current again; None when nothing was saved to take back."""
        ...

    def progress(self) -> Progress:
        """This person's figures now (the last known ones when they cannot be asked)."""
        ...
