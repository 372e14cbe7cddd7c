"""The attribute review queue of the project open here: its attribute suggestions behind
the ``AttributeReviewQueue`` interface.

The order is the team server's (``server_queues.next_image_to_decide``: a person's own
attribute batch first, an image someone else holds or was given left out, skipped images
after the others), and so are the figures (``attribute_figures``); decisions and skips are
``studio.attributes.labels``' writes, the Attributes pane's own. Nothing is held from
others, so ``hold`` re-reads the image and ``release`` has no lease to end. Previous and
Next run over the images shown in this session.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from studio.attributes import labels
from studio.attributes.query import attribute_states
from studio.store import Project
from studio.store.repos import server_queues as queues_repo
from studio.work_queue.attribute_protocol import (
    ALL_DECIDED,
    DECISIONS,
    NO_IMAGE,
    AttributeAction,
    AttributeImage,
    AttributesDecided,
    Suggestion,
    checked_decisions,
    place,
)
from studio.work_queue.protocol import Progress


def describe(project: Project, person: str, image_id: str) -> AttributeImage:
    """One image as the queue shows it: its attributes, and its place among the person's."""
    suggestions = tuple(Suggestion(s.attribute, s.type, s.status, s.best_confidence)
                        for s in attribute_states(project, image_id))
    position, size = place(queues_repo.attribute_figures(project, person, time.time()))
    return AttributeImage(image_id, suggestions, position, size)


class LocalAttributeQueue:
    def __init__(self, project: Project, person: str) -> None:
        self.project = project
        self.person = person
        self._current: AttributeImage | None = None
        self._seen: list[str] = []  # the images shown in this session, for Previous/Next
        self._why: str | None = None  # why nothing is offered

    # -- reading -----------------------------------------------------------------------

    @property
    def current(self) -> AttributeImage | None:
        return self._current

    def can(self, action: AttributeAction) -> str | None:
        if action == "next" and self._current is None:
            return self._why
        if action in ("decide", "skip") and self._current is None:
            return NO_IMAGE
        return None

    def progress(self) -> Progress:
        figures = queues_repo.attribute_figures(self.project, self.person, time.time())
        return Progress(figures["done"], figures["remaining"])

    # -- moving ------------------------------------------------------------------------

    def _show(self, image_id: str | None) -> AttributeImage | None:
        self._why = ALL_DECIDED if image_id is None else None
        self._current = None if image_id is None else describe(self.project, self.person,
                                                                image_id)
        if image_id is not None and image_id not in self._seen:
            self._seen.append(image_id)
        return self._current

    def take_next(self) -> AttributeImage | None:
        if self._current is not None:
            return self._show(self._current.image_id)
        return self._show(queues_repo.next_image_to_decide(self.project, self.person,
                                                           time.time(), lock=False))

    def step(self, forward: bool) -> AttributeImage | None:
        here = self._seen.index(self._current.image_id) if self._current else len(self._seen)
        there = here + (1 if forward else -1)
        if 0 <= there < len(self._seen):
            return self._show(self._seen[there])
        if forward and self._current is None:
            return self.take_next()
        return self._current  # none that way: it stays

    def hold(self) -> AttributeImage | None:
        """Nothing is leased here: the image as it is now."""
        return self._show(self._current.image_id) if self._current else None

    def release(self) -> None:
        self._current = None

    def skip(self) -> AttributeImage | None:
        if self._current is None:
            return None
        labels.skip(self.project, self.person, self._current.image_id)
        self._current = None
        return self.take_next()

    # -- decisions ---------------------------------------------------------------------

    def decide(self, decisions: Mapping[str, str]) -> AttributesDecided:
        kept = checked_decisions(self._current, decisions)
        assert self._current is not None
        image_id = self._current.image_id
        with self.project.writing("labels"):  # one edit, as the server applies it
            for status in DECISIONS:
                names = [name for name, wanted in kept.items() if wanted == status]
                if names:
                    labels.review(self.project, self.person, image_id, names, status)
        self._current = None
        self.take_next()
        return AttributesDecided(image_id, kept)

    def outcome(self, decided: AttributesDecided) -> AttributesDecided:
        return decided  # the project answers at once: nothing waits
