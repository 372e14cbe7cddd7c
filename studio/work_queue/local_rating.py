"""The rating queue of the project open here: ``studio.quality.ratings`` behind the
``RatingQueue`` interface (its order and rules are that module's: a rater's shuffled
queue per sample, every score one audited change, ``done`` needing all five).

Items are described as the team server describes them (``studio.server.ratings.blind``:
image ids and texts, the rater's own scores), so one view serves either face; the files
and captions of the pictures on screen are this project's (``image``).
"""

from __future__ import annotations

from dataclasses import replace

from studio.errors import StudioError
from studio.quality import ratings
from studio.store import Project
from studio.work_queue.rating_protocol import (
    NO_ITEM,
    FinalStatus,
    Finished,
    Progress,
    RatingAction,
    RatingCard,
    RatingTurn,
    checked_finish,
    checked_score,
    first_with_work,
    nothing_left,
)


def _turn(view: ratings.TurnView) -> RatingTurn:
    return RatingTurn(view.index, view.reference.image_id, view.target.image_id, view.text)


def card(item: ratings.RatingItem) -> RatingCard:
    """A project's rating item as the rater sees it, blind."""
    return RatingCard(item.assignment_id, item.position, item.queue_size,
                      tuple(_turn(view) for view in item.history), _turn(item.turn),
                      dict(item.scores), item.note, item.status)


class LocalRatingQueue:
    def __init__(self, project: Project, rater: str, sample: str = "") -> None:
        self.project = project
        self.rater = rater
        self._sample = sample
        self._current: RatingCard | None = None
        self._images: dict[str, ratings.ImageView] = {}
        self._why: str | None = None  # why nothing is offered

    # -- reading -----------------------------------------------------------------------

    @property
    def current(self) -> RatingCard | None:
        return self._current

    @property
    def sample(self) -> str:
        return self._sample

    def can(self, action: RatingAction) -> str | None:
        if action == "next" and self._current is None:
            return self._why
        if action in ("score", "finish") and self._current is None:
            return NO_ITEM
        return None

    def samples(self) -> dict[str, Progress]:
        return ratings.rater_samples(self.project, self.rater)

    def progress(self) -> Progress:
        return ratings.rater_progress(self.project, self._sample, self.rater)

    def image(self, image_id: str) -> ratings.ImageView | None:
        """A picture of the item on screen, its file and caption (None: not one of its)."""
        return self._images.get(image_id)

    # -- moving ------------------------------------------------------------------------

    def choose(self, sample: str) -> None:
        self._sample = sample
        self._show(None)

    def take_next(self) -> RatingCard | None:
        if not self._sample:
            self._sample = first_with_work(self.samples())
        item = ratings.next_item(self.project, self._sample, self.rater) if self._sample else None
        self._show(item)
        if item is None:
            self._why = nothing_left(self.samples(), self._sample)
        return self._current

    def _show(self, item: ratings.RatingItem | None) -> None:
        self._why = None
        self._current = None if item is None else card(item)
        self._images = {} if item is None else {
            view.image_id: view
            for turn in (*item.history, item.turn) for view in (turn.reference, turn.target)}

    # -- scoring -----------------------------------------------------------------------

    def _held(self) -> RatingCard:
        if self._current is None:
            raise StudioError(NO_ITEM)
        return self._current

    def score(self, key: str, value: int | None) -> RatingCard:
        held = self._held()
        value = checked_score(key, value)
        ratings.save_scores(self.project, held.assignment_id, self.rater, {key: value})
        self._current = replace(held, scores={**held.scores, key: value})
        return self._current

    def keep_note(self, note: str) -> RatingCard:
        held = self._held()
        ratings.save_scores(self.project, held.assignment_id, self.rater, {}, note.strip())
        self._current = replace(held, note=note.strip())
        return self._current

    def finish(self, status: FinalStatus, note: str | None = None) -> Finished:
        held = checked_finish(self._current, status)
        ratings.set_status(self.project, held.assignment_id, self.rater, status,
                           None if note is None else note.strip())
        self.take_next()
        return Finished(held.assignment_id, status)

    def outcome(self, finished: Finished) -> Finished:
        return finished  # the project answers at once: nothing waits
