"""A rater's queue: their next item, their own scores, autosave, skip and flag.

Blind by construction: a ``RatingItem`` carries images, texts and the rater's own scores
and nothing else, so no view built from it can show the dataset, the origin or another
rater's scores. Every score is written the moment it is given (one audited change each),
so nothing is lost if the window closes mid-item.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.errors import ImagePathError, StudioError
from studio.quality.criteria import CRITERION_KEYS, SCALE
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import ratings as ratings_repo

FINAL_STATUSES = ("done", "skipped", "flagged")


@dataclass(frozen=True)
class ImageView:
    image_id: str
    path: Path
    caption: str = ""


@dataclass(frozen=True)
class TurnView:
    """One turn as a rater sees it: reference → text → target."""

    index: int
    reference: ImageView
    target: ImageView
    text: str


@dataclass(frozen=True)
class RatingItem:
    assignment_id: int
    position: int  # 1-based place in the rater's queue
    queue_size: int
    history: tuple[TurnView, ...]  # the earlier turns, oldest first
    turn: TurnView
    scores: dict[str, int | None]
    note: str
    status: str


@dataclass(frozen=True)
class Progress:
    total: int
    pending: int
    done: int
    skipped: int
    flagged: int


def _assignment(project: Project, assignment_id: int, rater: str) -> tuple[int, int, int, str]:
    """(transaction id, turn index, order key, status), refusing another rater's item."""
    return _checked(ratings_repo.assignment(project, assignment_id), assignment_id, rater)


def _checked(
    row: dict | None, assignment_id: int, rater: str
) -> tuple[int, int, int, str]:
    if row is None:
        raise StudioError(f"There is no rating assignment {assignment_id}.")
    if row["rater"] != rater:
        raise StudioError("This item belongs to another rater's queue.")
    return int(row["transaction_id"]), int(row["turn_index"]), int(row["order_key"]), row["status"]


def rater_progress(project: Project, sample: str, rater: str) -> Progress:
    counts = ratings_repo.status_counts(project, sample, rater)
    return Progress(sum(counts.values()), counts.get("pending", 0), counts.get("done", 0),
                    counts.get("skipped", 0), counts.get("flagged", 0))


def rater_samples(project: Project, rater: str) -> dict[str, Progress]:
    """Every sample in which ``rater`` has a queue (in name order), with their progress."""
    return {
        sample: Progress(sum(counts.values()), counts.get("pending", 0), counts.get("done", 0),
                         counts.get("skipped", 0), counts.get("flagged", 0))
        for sample, counts in ratings_repo.rater_status_counts(project, rater).items()
    }


def next_item(project: Project, sample: str, rater: str) -> RatingItem | None:
    """The rater's first pending item in their shuffled order; None when all are through."""
    first = ratings_repo.first_pending(project, sample, rater)
    return None if first is None else load_item(project, first, rater)


def load_item(project: Project, assignment_id: int, rater: str) -> RatingItem:
    tid, turn_index, order_key, status = _assignment(project, assignment_id, rater)
    images = ratings_repo.item_images(project, tid)
    views = {pos: ImageView(image_id, _shown_file(project, image_id, path), caption)
             for pos, image_id, caption, path in images}
    turns = ratings_repo.turns_up_to(project, tid, turn_index)
    shown = [TurnView(k, views[ref], views[k], text) for k, ref, text in turns]
    row = ratings_repo.assignment(project, assignment_id)
    assert row is not None  # checked by _assignment above
    size, before = ratings_repo.queue_place(project, row["sample"], row["rater_id"], order_key)
    scores, note = _own_scores(project, assignment_id)
    return RatingItem(assignment_id, before + 1, size, tuple(shown[:-1]),
                      shown[-1], scores, note, status)


def _own_scores(project: Project, assignment_id: int) -> tuple[dict[str, int | None], str]:
    found = ratings_repo.scores(project, assignment_id)
    if found is None:
        return {key: None for key in CRITERION_KEYS}, ""
    return {key: found[0][key] for key in CRITERION_KEYS}, found[1]


def save_scores(project: Project, assignment_id: int, rater: str,
                scores: dict[str, int | None], note: str | None = None) -> None:
    """Autosave: merge ``scores`` (criterion → 1–5 or None) into the rater's rating."""
    for key, value in scores.items():
        if key not in CRITERION_KEYS:
            raise StudioError(f"Unknown criterion {key!r}; the criteria are "
                              f"{', '.join(CRITERION_KEYS)}.")
        if value is not None and value not in SCALE:
            raise StudioError(f"A score is 1 to 5, got {value!r}.")
    # the item and its saved scores in one statement (one round trip fewer per autosave)
    found = ratings_repo.assignment_with_scores(project, assignment_id)
    _checked(None if found is None else found[0], assignment_id, rater)
    assert found is not None
    saved, old_note = found[1], found[2]
    before = {key: None if saved is None else saved[key] for key in CRITERION_KEYS}
    merged = {**before, **scores}
    note = old_note if note is None else note
    if merged == before and note == old_note:
        return
    with project.change(rater, "rate", "rating", assignment_id,
                        {**before, "note": old_note}) as record:
        ratings_repo.save_scores(project, assignment_id, merged, note, utc_now())
        record["after"] = {**merged, "note": note}


def set_status(project: Project, assignment_id: int, rater: str, status: str,
               note: str | None = None) -> None:
    """Finish an item: ``done`` needs all five scores; ``skipped``/``flagged`` do not.

    ``pending`` reopens an item. A note (a flag's reason) is saved with the status.
    """
    if status not in (*FINAL_STATUSES, "pending"):
        raise StudioError(f"Unknown status {status!r}.")
    _, _, _, old = _assignment(project, assignment_id, rater)
    scores, _ = _own_scores(project, assignment_id)
    if status == "done":
        missing = [k for k in CRITERION_KEYS if scores[k] is None]
        if missing:
            raise StudioError(f"Score every criterion first (missing: {', '.join(missing)}).")
    if note is not None:
        save_scores(project, assignment_id, rater, {}, note)
    with project.change(rater, status if status != "pending" else "reopen", "rating_assignment",
                        assignment_id, {"status": old}) as record:
        ratings_repo.set_status(project, assignment_id, status)
        record["after"] = {"status": status}


def _shown_file(project: Project, image_id: str, path: str) -> Path:
    """The image's file, or the image root (shown as no picture) where its path is refused."""
    try:
        return project.stored_file(path, image_id)
    except ImagePathError:
        return project.image_root
