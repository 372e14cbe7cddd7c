"""Attribute decisions over the server: the next image with undecided suggestions, with a
lease, and a person's accept/reject decisions on it applied once per ``edit_uid``. A skipped
image comes back to that person after the others, as on the desktop.

Decisions go through ``studio.attributes.labels.review``, the Attributes pane's own
write (a decision is about the fact: every source's row of it changes; an attribute no
source suggested becomes a person's label). All decisions of one edit are one write
transaction. Images of a person's attribute batch (``team assign attributes``) come
first; an image batched to someone else is never handed out.
"""

from __future__ import annotations

import time
from typing import Any

from studio.attributes.labels import review
from studio.attributes.query import attribute_states
from studio.attributes.vocabulary import find_entry
from studio.server import queue
from studio.server.edits import apply_once
from studio.server.errors import ApiError
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.repos import server as server_repo
from studio.store.repos import server_queues as queues_repo

KIND = server_repo.ATTRIBUTE
DECISIONS = ("accepted", "rejected")


def _state(project: Project, image_id: str) -> list[dict[str, Any]]:
    return [
        {"attribute": state.attribute, "type": state.type, "status": state.status,
         "confidence": state.best_confidence}
        for state in attribute_states(project, image_id)
    ]


def _item(project: Project, lease: dict[str, Any]) -> dict[str, Any]:
    image_id = str(lease["item_key"])
    return {
        "lease_id": int(lease["id"]),
        "expires_at": float(lease["expires_at"]),
        "image_id": image_id,
        "attributes": _state(project, image_id),
    }


def _undecided(project: Project, lease: dict[str, Any]) -> bool:
    states = attribute_states(project, str(lease["item_key"]))
    return any(state.status == "suggested" for state in states)


def take_next(project: Project, who: Identity, lease_seconds: float) -> dict[str, Any] | None:
    """The image this person holds, or the next one with suggestions to decide."""

    def pick(now: float) -> tuple[int, str] | None:
        image_id = queues_repo.next_image_to_decide(project, who.name, now)
        return None if image_id is None else (0, image_id)

    return queue.take(project, who, KIND, lease_seconds, pick,
                      lambda lease: _item(project, lease),
                      lambda lease: _undecided(project, lease))


def progress(project: Project, who: Identity) -> dict[str, int]:
    """This person's figures: images decided, and images with suggestions still to decide."""
    return queues_repo.attribute_figures(project, who.name, time.time())


def decide(
    project: Project, who: Identity, image_id: str, uid: str,
    decisions: list[tuple[str, str]],
) -> tuple[int, dict[str, Any]]:
    """Apply ``(attribute, status)`` decisions on one image once per ``uid``: one write
    transaction; an image another person holds is refused and nothing is written."""

    def work() -> dict[str, Any]:
        if not queues_repo.image_exists(project, image_id):
            raise ApiError(404, f"There is no image {image_id!r}.")
        if queues_repo.image_held_by_others(project, image_id, who.name, time.time()):
            raise ApiError(409, f"Image {image_id!r} is held by someone else; ask for your "
                                "next item.")
        unknown = [name for name, _ in decisions if find_entry(project, name) is None]
        if unknown:
            raise ApiError(422, f"There is no attribute {unknown[0]!r} in the project's "
                                "vocabulary.")
        for status in DECISIONS:
            names = [name for name, wanted in decisions if wanted == status]
            if names:
                review(project, who.name, image_id, names, status)
        after = _state(project, image_id)
        if not any(state["status"] == "suggested" for state in after):
            server_repo.release_item_key(project, KIND, image_id, who.name)  # all decided
        return {"image_id": image_id, "attributes": after}

    return apply_once(project, who, uid, work, "labels", f"decisions {image_id}")
