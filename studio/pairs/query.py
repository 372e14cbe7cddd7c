"""Finding pairs for the browser: filters to an id list, then rows fetched a page at a time.

The Pairs view holds only the ids that match the filters (a single integer column, cheap
even for 100,000 pairs) and asks for the full rows of the few it shows. A pair's status
follows from its captions and the caption policy:

- ``needs_caption``: no submitted or accepted caption yet;
- ``needs_more``: some, but fewer than the policy asks for;
- ``in_review``: enough captions, at least one not reviewed yet;
- ``accepted``: enough captions, all accepted;
- ``rejected`` (a filter, not a state): a caption of the pair was rejected.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from studio.captions.records import CaptionPolicy
from studio.errors import ImagePathError
from studio.store import Project
from studio.store.repos import pairs as pairs_repo

STATUS_FILTERS = {
    "needs_caption": "needs caption",
    "needs_more": "needs second caption",
    "in_review": "in review",
    "accepted": "accepted",
    "rejected": "rejected",
}

@dataclass(frozen=True)
class PairFilter:
    category: str | None = None
    split: str | None = None
    status: str | None = None
    annotator: str | None = None
    search: str = ""

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUS_FILTERS:
            raise ValueError(
                f"unknown status filter {self.status!r}; expected one of "
                f"{', '.join(STATUS_FILTERS)}"
            )


@dataclass(frozen=True)
class PairRow:
    id: int
    category: str
    split: str
    reference_id: str
    target_id: str | None
    reference_title: str
    target_title: str
    method: str
    score: float | None
    source: str
    live: int
    pending: int
    rejected: int
    authors: str

    def status(self, policy: CaptionPolicy) -> str:
        if self.live == 0:
            return STATUS_FILTERS["needs_caption"]
        if self.live < policy.per_pair:
            return STATUS_FILTERS["needs_more"]
        return STATUS_FILTERS["in_review"] if self.pending else STATUS_FILTERS["accepted"]


def pair_ids(project: Project, where: PairFilter, policy: CaptionPolicy) -> list[int]:
    """Ids of the pairs matching ``where``, in creation order."""
    return pairs_repo.pair_ids(
        project,
        quota=policy.per_pair,
        category=where.category,
        split=where.split,
        status=where.status,
        annotator=where.annotator,
        search=where.search,
    )


def pair_rows(project: Project, ids: list[int]) -> dict[int, PairRow]:
    """Full rows of the given pairs (one query), keyed by id."""
    return {row["id"]: PairRow(**row) for row in pairs_repo.pair_rows(project, ids)}


def filter_choices(project: Project) -> dict[str, list[Any]]:
    """Values the filter menus offer: categories, splits and annotators present."""
    return pairs_repo.filter_choices(project)


def pair_thumbnails(
    project: Project, ids: list[int]
) -> dict[int, tuple[tuple[str, bool] | None, tuple[str, bool] | None]]:
    """{pair id: ((reference file, missing), (target file, missing))} for thumbnails."""
    if not ids:
        return {}
    root = str(project.image_root) + os.sep  # plain strings: this runs for every page shown
    rows = pairs_repo.pair_image_files(project, ids)

    def shown(path: str | None, missing: int) -> tuple[str, bool] | None:
        if path is None:
            return None
        if path.startswith(("../", "/")) or "/../" in path:  # check only what may leave
            try:
                return str(project.stored_file(path)), bool(missing)
            except ImagePathError:
                return root + path, True  # refused: drawn as missing, never read
        return root + path, bool(missing)

    return {row[0]: (shown(row[1], row[2]), shown(row[3], row[4])) for row in rows}


def pair_images(project: Project, pair_id: int) -> tuple[str, str | None] | None:
    """(reference id, target id) of a pair, or None if it does not exist."""
    return pairs_repo.pair_images(project, pair_id)


def pair_with_images(project: Project, reference_id: str, target_id: str | None) -> int | None:
    """This project's pair between these two pictures (a team server's pair, found in a
    copy of its project), or None."""
    return pairs_repo.pair_with_images(project, reference_id, target_id)
