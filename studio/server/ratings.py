"""Rating over the server, blind: a rater gets the turn to rate and nothing else.

Rating items are already dealt per rater when the coordinator draws a sample (``quality
sample`` / ``team assign ratings``), so no two raters compete for one assignment and no
lease is needed: "next" is the rater's first pending item. What leaves the server is
built from ``studio.quality.ratings.RatingItem`` (blind by construction) and reduced
further: image ids and texts only, never a file path, the dataset, the origin or another
rater's scores. Scores and statuses are edits applied once per ``edit_uid``.
"""

from __future__ import annotations

from typing import Any

from studio.quality import ratings
from studio.server.edits import apply_once
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.repos import ratings as ratings_repo


def _turn(view: ratings.TurnView) -> dict[str, Any]:
    return {"index": view.index, "reference_id": view.reference.image_id,
            "target_id": view.target.image_id, "text": view.text}


def blind(item: ratings.RatingItem) -> dict[str, Any]:
    return {
        "assignment_id": item.assignment_id,
        "position": item.position,
        "queue_size": item.queue_size,
        "history": [_turn(view) for view in item.history],
        "turn": _turn(item.turn),
        "scores": item.scores,
        "note": item.note,
        "status": item.status,
    }


def samples(project: Project, who: Identity) -> list[dict[str, Any]]:
    """The samples in which this rater has a queue, in name order, with what is left: the
    rater's sample chooser opens on one with work."""
    return [{"name": name, "total": p.total, "pending": p.pending, "done": p.done,
             "skipped": p.skipped, "flagged": p.flagged}
            for name, p in ratings.rater_samples(project, who.name).items()]


def next_item(project: Project, who: Identity, sample: str) -> dict[str, Any] | None:
    item = ratings.next_item(project, sample, who.name)
    return None if item is None else blind(item)


def _mine(project: Project, who: Identity, assignment_id: int) -> None:
    row = ratings_repo.assignment(project, assignment_id)
    if row is None:
        raise ApiError(404, f"There is no rating item {assignment_id}.")
    if row["rater"] != who.name:
        raise ApiError(403, f"Rating item {assignment_id} belongs to another rater.")


def save_scores(project: Project, who: Identity, assignment_id: int, uid: str,
                scores: dict[str, int | None], note: str | None) -> tuple[int, dict[str, Any]]:
    _mine(project, who, assignment_id)

    def work() -> dict[str, Any]:
        ratings.save_scores(project, assignment_id, who.name, scores, note)
        return blind(ratings.load_item(project, assignment_id, who.name))

    return apply_once(project, who, uid, work, "ratings", f"scores {assignment_id}")


def set_status(project: Project, who: Identity, assignment_id: int, uid: str, status: str,
               note: str | None) -> tuple[int, dict[str, Any]]:
    _mine(project, who, assignment_id)

    def work() -> dict[str, Any]:
        ratings.set_status(project, assignment_id, who.name, status, note)
        return blind(ratings.load_item(project, assignment_id, who.name))

    return apply_once(project, who, uid, work, "ratings", f"status {assignment_id}")
