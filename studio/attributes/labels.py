"""Writing labels: machine suggestions in bulk, and people's review decisions.

A decision is about a fact (this image has this attribute), not about one source's row,
so accepting or rejecting sets every row of that (image, attribute) at once, and a new
suggestion for a fact someone already decided arrives with that decision instead of
asking again. Re-running a machine source replaces only its undecided rows, so it is
idempotent and never undoes a person's work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from studio.attributes.records import STATUSES
from studio.attributes.vocabulary import (
    VocabularyEntry,
    VocabularyError,
    clean_name,
    entry_from_row,
    get_entry,
)
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import attributes as attributes_repo
from studio.store.repos import server_queues as server_queues_repo

ENTITY = "image_attributes"
Fact = tuple[str, int]  # (image id, attribute id)


def decided_statuses(project: Project, image_ids: Iterable[str] | None = None) -> dict[Fact, str]:
    """The latest accept/reject per (image, attribute), over every source."""
    rows = attributes_repo.decisions(project)
    wanted = None if image_ids is None else set(image_ids)
    return {(r[0], r[1]): r[2] for r in rows if wanted is None or r[0] in wanted}


def replace_suggestions(
    project: Project,
    actor: str,
    source: str,
    model: str,
    found: Mapping[str, Mapping[int, float]],
    action: str,
) -> dict[str, int]:
    """Make ``source``/``model``'s rows on the images of ``found`` equal to ``found``.

    ``found`` maps image id -> {attribute id: confidence}; images absent from it are left
    alone. Decided rows are kept even when no longer found. One transaction, one audit
    row; returns counts of rows added, updated and removed.
    """
    images = list(found)
    wanted = {(i, a): c for i, attrs in found.items() for a, c in attrs.items()}
    now = utc_now()
    # Read and write in one transaction: a person's decision made between a read outside
    # it and the write would be overwritten with "suggested".
    with project.change(actor, action, ENTITY) as record:
        existing: dict[Fact, tuple[str, float | None]] = {
            (image_id, attribute_id): (status, confidence)
            for image_id, attribute_id, status, confidence in attributes_repo.source_rows(
                project, source, model, images
            )
        }
        decided = decided_statuses(project, images)
        added = [
            (i, a, c, decided.get((i, a), "suggested"))
            for (i, a), c in wanted.items()
            if (i, a) not in existing
        ]
        updated = [
            (i, a, c)
            for (i, a), c in wanted.items()
            if (i, a) in existing and existing[(i, a)][1] != c
        ]
        removed = [
            (i, a)
            for (i, a), (status, _) in existing.items()
            if (i, a) not in wanted and status == "suggested"
        ]
        counts = {"added": len(added), "updated": len(updated), "removed": len(removed)}
        attributes_repo.replace_source_rows(
            project, source, model, added=added, updated=updated, removed=removed, now=now
        )
        record["after"] = {"source": source, "model": model, "images": len(images), **counts}
    return counts


def _states(project: Project, image_id: str, attribute_ids: Sequence[int]) -> dict[int, str]:
    """Current folded status per attribute of one image (None-free: absent = missing)."""
    out: dict[int, str] = {}
    for attribute_id in attribute_ids:
        statuses = attributes_repo.statuses_newest_first(project, image_id, attribute_id)
        decided = [s for s in statuses if s != "suggested"]
        if statuses:
            out[attribute_id] = decided[0] if decided else "suggested"
    return out


def _apply(project: Project, image_id: str, attribute_id: int, status: str, now: str) -> None:
    attributes_repo.decide(project, image_id, attribute_id, status, now)


def _check_status(status: str) -> None:
    if status not in STATUSES:
        raise VocabularyError(f"unknown status {status!r}; expected one of {', '.join(STATUSES)}")


def review(
    project: Project, actor: str, image_id: str, attributes: Sequence[str], status: str
) -> None:
    """Accept, reject or (status 'suggested') un-decide attributes of one image.

    Accepting or rejecting an attribute no source suggested records it as a person's
    label; un-deciding removes a person's own label. One audited change; the attributes
    and their state before are read inside it (on PostgreSQL in one statement sent with
    the BEGIN, the writes then go with the audit row and the COMMIT: two round trips).
    """
    _check_status(status)
    names = list(dict.fromkeys(attributes))
    if not names:
        return
    action = {"accepted": "attributes.accept", "rejected": "attributes.reject"}.get(
        status, "attributes.undecide"
    )
    with project.change(actor, action, ENTITY, image_id) as record:
        entries, before = _entries_and_states(project, image_id, names)
        record["before"] = {e.name: before.get(int(e.id or 0)) for e in entries}
        now = utc_now()
        for entry in entries:
            _apply(project, image_id, int(entry.id or 0), status, now)
        record["after"] = {e.name: status for e in entries}


def _entries_and_states(
    project: Project, image_id: str, names: Sequence[str]
) -> tuple[list[VocabularyEntry], dict[int, str]]:
    """The vocabulary entries of ``names`` (in their order; ``VocabularyError`` for one the
    vocabulary lacks) and their folded status on the image (as ``_states``): one read."""
    cleaned = [clean_name(name) for name in names]
    rows = attributes_repo.vocabulary_with_statuses(project, image_id, list(dict.fromkeys(cleaned)))
    found: dict[str, VocabularyEntry] = {}
    statuses: dict[int, list[str]] = {}
    for row in rows:
        entry = found.setdefault(row["name"], entry_from_row(row))
        if row["status"] is not None:
            statuses.setdefault(int(entry.id or 0), []).append(row["status"])
    entries = []
    for name, key in zip(names, cleaned, strict=True):
        if key not in found:
            raise VocabularyError(f"There is no attribute {name!r} in the project's vocabulary.")
        entries.append(found[key])
    states = {}
    for attribute_id, newest_first in statuses.items():
        decided = [s for s in newest_first if s != "suggested"]
        states[attribute_id] = decided[0] if decided else "suggested"
    return entries, states


def skip(project: Project, actor: str, image_id: str) -> None:
    """Leave the image's suggestions undecided for now: a row in the audit log, by which the
    image comes back to ``actor`` after the others (``server_queues.next_image_to_decide``,
    the order of both attribute queues)."""
    with project.change(actor, server_queues_repo.ATTRIBUTE_SKIP, ENTITY, image_id):
        pass


def review_many(
    project: Project, actor: str, attribute: str, image_ids: Sequence[str], status: str
) -> None:
    """One attribute decided on many images at once: one transaction, one audit row."""
    _check_status(status)
    entry = get_entry(project, attribute)
    image_ids = list(dict.fromkeys(image_ids))
    if not image_ids:
        return
    attribute_id = int(entry.id or 0)
    before = {i: _states(project, i, [attribute_id]).get(attribute_id) for i in image_ids}
    action = {"accepted": "attributes.accept_many", "rejected": "attributes.reject_many"}.get(
        status, "attributes.undecide_many"
    )
    with project.change(
        actor, action, ENTITY, f"attribute:{entry.name}", before=before
    ) as record:
        now = utc_now()
        for image_id in image_ids:
            _apply(project, image_id, attribute_id, status, now)
        record["after"] = {"attribute": entry.name, "status": status, "images": image_ids}
