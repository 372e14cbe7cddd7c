"""The attribute review queue, Qt-free: what a one-image attribute review asks of its work,
local or team.

A person decides the attribute suggestions of one image at a time: the image with its
suggestions (``AttributeImage``: each attribute with its status and best score, the place
in the queue), ``decide`` keeps accepts and rejects of that image as one edit and moves on
to the next image with undecided suggestions, ``skip`` leaves the image undecided and moves
on: a skipped image comes back after the others, on both faces (the skip is a row of the
project's audit log, ``attributes.skip``, which the team server writes too).

As with the other queues (``protocol``, ``review_protocol``, ``rating_protocol``), every
method but ``current`` and ``can`` may block (the database, the network): a view calls
them from a worker lane and applies the answer on its UI thread. A decision is never
lost: it is kept in the project, or waits in the client's outbox until the server answers
(``AttributesDecided.waiting``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from studio.errors import StudioError
from studio.work_queue.protocol import Progress

AttributeAction = Literal["next", "previous", "skip", "decide", "progress"]
ATTRIBUTE_ACTIONS: tuple[str, ...] = get_args(AttributeAction)
DECISIONS = ("accepted", "rejected")
NO_IMAGE = "There is no image to decide attributes of."
NO_DECISIONS = "Decide at least one attribute (A or R), or skip the image."
ALL_DECIDED = "All done: no image has suggestions for you to decide."


@dataclass(frozen=True)
class Suggestion:
    """One attribute of the image as review shows it: its status (``suggested`` until a
    person decides it) and the best score a model gave it (None: a rule or a person)."""

    attribute: str
    type: str
    status: str
    score: float | None = None


@dataclass(frozen=True)
class AttributeImage:
    """One image to decide: its id, its attributes, and its place in the person's queue
    (``position`` of ``queue_size``: images decided so far plus those still to decide).
    ``lease_id``/``expires_at``: the team server's hold on it (None on a project)."""

    image_id: str
    suggestions: tuple[Suggestion, ...]
    position: int
    queue_size: int
    lease_id: int | None = None
    expires_at: float | None = None

    def undecided(self) -> list[str]:
        """The attributes still suggested, in the order shown."""
        return [s.attribute for s in self.suggestions if s.status == "suggested"]


@dataclass(frozen=True)
class AttributesDecided:
    """What became of one image's decisions: kept (``waiting``: on this computer until the
    server answers) or refused after the fact (``refused``: the server's words, e.g.
    someone else holds the image). A refusal known at once raises ``StudioError``."""

    image_id: str
    decisions: Mapping[str, str]
    waiting: bool = False
    refused: str | None = None
    receipt: str | None = field(default=None, compare=False)


@runtime_checkable
class AttributeReviewQueue(Protocol):
    """A person's queue of images with attribute suggestions (``person``: whose
    decisions)."""

    person: str

    @property
    def current(self) -> AttributeImage | None:
        """The image on screen; None: none (``can('next')`` says why). Does not block."""
        ...

    def can(self, action: AttributeAction) -> str | None:
        """None when ``action`` can be done now; else the reason, in one line. Does not
        block."""
        ...

    def take_next(self) -> AttributeImage | None:
        """The image on screen (or held), else the next one with undecided suggestions;
        None: nothing (or it cannot ask: ``can('next')``)."""
        ...

    def step(self, forward: bool) -> AttributeImage | None:
        """Previous or next among the images shown in this session; stays where it is when
        there is none that way (``can('previous')``: where a face has no Previous)."""
        ...

    def hold(self) -> AttributeImage | None:
        """Keep holding the current image (renew its lease); the image as it is now."""
        ...

    def release(self) -> None:
        """Stop holding the current image without skipping it."""
        ...

    def skip(self) -> AttributeImage | None:
        """Leave the current image undecided (it comes back after the others) and move on;
        the next image."""
        ...

    def decide(self, decisions: Mapping[str, str]) -> AttributesDecided:
        """Accept or reject attributes of the current image (``{attribute: accepted |
        rejected}``, one edit) and move on to the next image."""
        ...

    def outcome(self, decided: AttributesDecided) -> AttributesDecided:
        """What became of decisions that waited: the same record while they still wait,
        else the server's answer. Does not call the server."""
        ...

    def progress(self) -> Progress:
        """Images this person decided, and images with suggestions still to decide."""
        ...


def checked_decisions(image: AttributeImage | None,
                      decisions: Mapping[str, str]) -> dict[str, str]:
    """The decisions as a queue keeps them, or ``StudioError`` saying what is wrong (both
    faces refuse alike, at once): an image on screen, at least one decision, each accepted
    or rejected."""
    if image is None:
        raise StudioError(NO_IMAGE)
    kept = {" ".join(name.split()): status for name, status in decisions.items()}
    if not kept or "" in kept:
        raise StudioError(NO_DECISIONS)
    wrong = [status for status in kept.values() if status not in DECISIONS]
    if wrong:
        raise StudioError(f"A decision is accepted or rejected, got {wrong[0]!r}.")
    return kept


def place(figures: Mapping[str, Any]) -> tuple[int, int]:
    """The place of the image on screen from a person's figures (it is one of those still
    to decide): its position and the queue's size."""
    done, remaining = int(figures["done"]), int(figures["remaining"])
    return done + 1, done + max(remaining, 1)


__all__ = ["ALL_DECIDED", "ATTRIBUTE_ACTIONS", "DECISIONS", "NO_DECISIONS", "NO_IMAGE",
           "AttributeAction", "AttributeImage", "AttributeReviewQueue", "AttributesDecided",
           "Suggestion", "checked_decisions", "place"]
