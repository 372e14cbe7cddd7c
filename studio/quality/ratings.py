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
    rows = list(project.db.query(
        "SELECT a.transaction_id, a.turn_index, a.order_key, a.status, p.name AS rater "
        "FROM rating_assignments a JOIN people p ON p.id = a.rater_id WHERE a.id = ?",
        [assignment_id],
    ))
    if not rows:
        raise StudioError(f"There is no rating assignment {assignment_id}.")
    row = rows[0]
    if row["rater"] != rater:
        raise StudioError("This item belongs to another rater's queue.")
    return int(row["transaction_id"]), int(row["turn_index"]), int(row["order_key"]), row["status"]


def rater_progress(project: Project, sample: str, rater: str) -> Progress:
    rows = project.db.execute(
        "SELECT a.status, count(*) FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
        "WHERE a.sample = ? AND p.name = ? GROUP BY 1",
        [sample, rater],
    ).fetchall()
    counts = {status: int(n) for status, n in rows}
    return Progress(sum(counts.values()), counts.get("pending", 0), counts.get("done", 0),
                    counts.get("skipped", 0), counts.get("flagged", 0))


def next_item(project: Project, sample: str, rater: str) -> RatingItem | None:
    """The rater's first pending item in their shuffled order; None when all are through."""
    row = project.db.execute(
        "SELECT a.id FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
        "WHERE a.sample = ? AND p.name = ? AND a.status = 'pending' ORDER BY a.order_key LIMIT 1",
        [sample, rater],
    ).fetchone()
    return None if row is None else load_item(project, int(row[0]), rater)


def load_item(project: Project, assignment_id: int, rater: str) -> RatingItem:
    tid, turn_index, order_key, status = _assignment(project, assignment_id, rater)
    db = project.db
    images = db.execute(
        "SELECT position, image_id, caption, i.path FROM transaction_images ti "
        "JOIN images i ON i.id = ti.image_id WHERE ti.transaction_id = ? ORDER BY position",
        [tid],
    ).fetchall()
    views = {pos: ImageView(image_id, _shown_file(project, image_id, path), caption)
             for pos, image_id, caption, path in images}
    turns = db.execute(
        "SELECT turn_index, reference_position, text FROM transaction_turns "
        "WHERE transaction_id = ? AND turn_index <= ? ORDER BY turn_index",
        [tid, turn_index],
    ).fetchall()
    shown = [TurnView(k, views[ref], views[k], text) for k, ref, text in turns]
    sample, person = db.execute(
        "SELECT sample, rater_id FROM rating_assignments WHERE id = ?", [assignment_id]
    ).fetchone()
    queue = db.execute(
        "SELECT count(*), sum(order_key < ?) FROM rating_assignments "
        "WHERE sample = ? AND rater_id = ?",
        [order_key, sample, person],
    ).fetchone()
    scores, note = _own_scores(project, assignment_id)
    return RatingItem(assignment_id, int(queue[1] or 0) + 1, int(queue[0]), tuple(shown[:-1]),
                      shown[-1], scores, note, status)


def _own_scores(project: Project, assignment_id: int) -> tuple[dict[str, int | None], str]:
    columns = ", ".join(CRITERION_KEYS)
    row = project.db.execute(
        f"SELECT {columns}, note FROM ratings WHERE assignment_id = ?", [assignment_id]
    ).fetchone()
    if row is None:
        return {key: None for key in CRITERION_KEYS}, ""
    return dict(zip(CRITERION_KEYS, row[:-1], strict=True)), row[-1]


def save_scores(project: Project, assignment_id: int, rater: str,
                scores: dict[str, int | None], note: str | None = None) -> None:
    """Autosave: merge ``scores`` (criterion → 1–5 or None) into the rater's rating."""
    for key, value in scores.items():
        if key not in CRITERION_KEYS:
            raise StudioError(f"Unknown criterion {key!r}; the criteria are "
                              f"{', '.join(CRITERION_KEYS)}.")
        if value is not None and value not in SCALE:
            raise StudioError(f"A score is 1 to 5, got {value!r}.")
    _assignment(project, assignment_id, rater)
    before, old_note = _own_scores(project, assignment_id)
    merged = {**before, **scores}
    note = old_note if note is None else note
    if merged == before and note == old_note:
        return
    with project.change(rater, "rate", "rating", assignment_id,
                        {**before, "note": old_note}) as record:
        columns = ", ".join(CRITERION_KEYS)
        marks = ", ".join("?" * len(CRITERION_KEYS))
        updates = ", ".join(f"{k} = excluded.{k}" for k in CRITERION_KEYS)
        project.db.execute(
            f"INSERT INTO ratings (assignment_id, {columns}, note, updated_at) "
            f"VALUES (?, {marks}, ?, ?) ON CONFLICT (assignment_id) DO UPDATE SET "
            f"{updates}, note = excluded.note, updated_at = excluded.updated_at",
            [assignment_id, *(merged[k] for k in CRITERION_KEYS), note, utc_now()],
        )
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
        project.db.execute("UPDATE rating_assignments SET status = ? WHERE id = ?",
                           [status, assignment_id])
        record["after"] = {"status": status}


def _shown_file(project: Project, image_id: str, path: str) -> Path:
    """The image's file, or the image root (shown as no picture) where its path is refused."""
    try:
        return project.stored_file(path, image_id)
    except ImagePathError:
        return project.image_root
