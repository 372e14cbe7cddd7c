"""The rating queue, Qt-free: what a rating view asks of its work, local or team.

A rater works through their own queue of turns in one sample at a time. Items are dealt
per rater when a sample is drawn, so nothing is leased: "next" is the rater's first
pending item of the sample. The item is blind by construction (``RatingCard``: image ids,
texts, the rater's own scores and note, the place in the queue; never a dataset, an origin
or another rater's scores), whichever face serves it.

As with the other queues (``protocol``, ``review_protocol``), every method but
``current``, ``sample`` and ``can`` may block (the database, the network): a view calls
them from a worker lane and applies the answer on its UI thread. A score is kept the
moment it is given, in the project or in the team client's outbox until the server
answers; ``finish`` moves on to the next item when it can, and when it cannot ``current``
is None and ``can("next")`` says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from studio.errors import StudioError
from studio.quality.criteria import CRITERION_KEYS, SCALE
from studio.quality.ratings import Progress

RatingAction = Literal["next", "score", "finish", "progress"]
RATING_ACTIONS: tuple[str, ...] = get_args(RatingAction)
FinalStatus = Literal["done", "skipped", "flagged"]
FINAL_STATUSES: tuple[str, ...] = get_args(FinalStatus)
STATUSES = ("pending", *FINAL_STATUSES)
NO_ITEM = "There is no item to rate."
NOT_SCORED = "Score every criterion first (1–5), or S to skip."
NO_ITEMS = "There are no rating items for you yet."


@dataclass(frozen=True)
class RatingTurn:
    """One turn as a rater sees it: reference → text → target, by image id."""

    index: int  # from 1, as the transaction numbers its turns
    reference_id: str
    target_id: str
    text: str


@dataclass(frozen=True)
class RatingCard:
    """One item to rate, blind: the turn, the turns before it (oldest first), the rater's
    own scores (criterion → 1–5 or None) and note, and its place in the rater's queue."""

    assignment_id: int
    position: int  # 1-based place in the rater's queue
    queue_size: int
    history: tuple[RatingTurn, ...]
    turn: RatingTurn
    scores: Mapping[str, int | None]
    note: str = ""
    status: str = "pending"

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Unknown rating status {self.status!r}; one of {STATUSES}.")
        if set(self.scores) != set(CRITERION_KEYS):
            raise ValueError(f"A rating item scores {CRITERION_KEYS}, got {tuple(self.scores)}.")

    def missing(self) -> list[str]:
        """The criteria not scored yet, in the form's order."""
        return [key for key in CRITERION_KEYS if self.scores[key] is None]


@dataclass(frozen=True)
class Finished:
    """What became of a done, skip or flag: kept (``waiting``: on this computer until the
    server answers) or refused after the fact (``refused``: the server's words). A refusal
    known at once raises ``StudioError``."""

    assignment_id: int
    status: FinalStatus
    waiting: bool = False
    refused: str | None = None
    receipt: str | None = field(default=None, compare=False)


@runtime_checkable
class RatingQueue(Protocol):
    """A rater's queue of turns to score (``rater``: whose scores), one sample at a time."""

    rater: str

    @property
    def current(self) -> RatingCard | None:
        """The item on screen; None: none (``can('next')`` says why). Does not block."""
        ...

    @property
    def sample(self) -> str:
        """The sample being rated; "" until one is chosen or the first with work is taken.
        Does not block."""
        ...

    def can(self, action: RatingAction) -> str | None:
        """None when ``action`` can be done now; else the reason, in one line. Does not
        block."""
        ...

    def samples(self) -> dict[str, Progress]:
        """The samples in which this rater has a queue, in name order, with what is left."""
        ...

    def choose(self, sample: str) -> None:
        """Rate ``sample`` from now on ("": the first with work); nothing is on screen
        until ``take_next``."""
        ...

    def take_next(self) -> RatingCard | None:
        """The rater's first pending item of the sample; None: all rated (or it cannot
        ask: ``can('next')``)."""
        ...

    def score(self, key: str, value: int | None) -> RatingCard:
        """Keep one score of the current item (1–5; None clears it); the item as it is."""
        ...

    def keep_note(self, note: str) -> RatingCard:
        """Keep the current item's note; the item as it is."""
        ...

    def finish(self, status: FinalStatus, note: str | None = None) -> Finished:
        """Finish the current item (``done`` needs every score) with an optional note (a
        flag's reason), and move on to the next one."""
        ...

    def outcome(self, finished: Finished) -> Finished:
        """What became of a finish that waited: the same record while it still waits, else
        the server's answer. Does not call the server."""
        ...

    def progress(self) -> Progress:
        """The rater's figures in the sample: total, pending, done, skipped, flagged."""
        ...


def checked_score(key: str, value: Any) -> int | None:
    """A score as a queue keeps it, or ``StudioError`` saying what is wrong (both faces
    refuse alike, at once)."""
    if key not in CRITERION_KEYS:
        raise StudioError(f"Unknown criterion {key!r}; the criteria are "
                          f"{', '.join(CRITERION_KEYS)}.")
    if value is not None and (isinstance(value, bool) or value not in SCALE):
        raise StudioError(f"A score is 1 to 5, got {value!r}.")
    return value if value is None else int(value)


def checked_finish(card: RatingCard | None, status: str) -> RatingCard:
    """The item a finish applies to, or ``StudioError`` (no item, unknown status, ``done``
    with a criterion unscored)."""
    if card is None:
        raise StudioError(NO_ITEM)
    if status not in FINAL_STATUSES:
        raise StudioError(f"Unknown status {status!r}; one of {', '.join(FINAL_STATUSES)}.")
    if status == "done" and card.missing():
        raise StudioError(NOT_SCORED)
    return card


def first_with_work(samples: Mapping[str, Progress]) -> str:
    """The sample a rater who chose none opens on: the first with items left, else the
    first they have; "" when they have none."""
    with_work = [name for name, p in samples.items() if p.pending]
    return (with_work or list(samples) or [""])[0]


def nothing_left(samples: Mapping[str, Progress], sample: str) -> str:
    """Why no item is offered in ``sample``, and where work is still left."""
    if not samples:
        return NO_ITEMS
    p = samples.get(sample)
    if p is None or not p.total:
        text = f"You have no items in sample {sample}."
    else:
        text = (f"Nothing left to rate in sample {sample}: finished with {p.done} rated, "
                f"{p.skipped} skipped, {p.flagged} flagged — thank you!")
    others = [(name, o.pending) for name, o in samples.items() if o.pending and name != sample]
    if others:
        text += " Still to rate: " + ", ".join(
            f"{pending} in sample {name}" for name, pending in others) + "; pick that sample."
    return text


__all__ = ["FINAL_STATUSES", "NOT_SCORED", "NO_ITEM", "NO_ITEMS", "RATING_ACTIONS",
           "FinalStatus", "Finished", "Progress", "RatingAction", "RatingCard",
           "RatingQueue", "RatingTurn", "checked_finish", "checked_score", "first_with_work",
           "nothing_left"]
