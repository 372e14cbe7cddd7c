"""Reading labels, for the Attributes pane and for other panes, sessions and simulators.

Everything here is read-only. "Truth" for evaluation is what people decided: an image's
accepted attributes, counted only on images where someone reviewed at least one label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.attributes.records import ATTRIBUTE_TYPES, AttributeState, Label
from studio.store import Project
from studio.store.repos import attributes as attributes_repo


def _label(row: Mapping[str, Any]) -> Label:
    return Label(
        image_id=row["image_id"], attribute=row["attribute"], type=row["type"],
        source=row["source"], status=row["status"], confidence=row["confidence"],
        model=row["model"] or "", attribute_id=int(row["attribute_id"]),
    )


def labels_of_image(
    project: Project,
    image_id: str,
    statuses: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
) -> list[Label]:
    """Every label row of an image, optionally only some statuses or sources."""
    rows = attributes_repo.label_rows_of_image(project, image_id, statuses, sources)
    return [_label(row) for row in rows]


def all_labels(project: Project) -> Iterable[Label]:
    """Every label of the project, image by image (for export)."""
    for row in attributes_repo.all_label_rows(project):
        yield _label(row)


def attribute_states(project: Project, image_id: str) -> list[AttributeState]:
    """One state per attribute of an image, sources folded together, for review chips."""
    grouped: dict[int, list[Label]] = {}
    for label in labels_of_image(project, image_id):
        grouped.setdefault(int(label.attribute_id or 0), []).append(label)
    states = []
    for attribute_id, labels in grouped.items():
        decided = [label.status for label in labels if label.status != "suggested"]
        states.append(
            AttributeState(
                attribute_id=attribute_id,
                attribute=labels[0].attribute,
                type=labels[0].type,
                status=decided[0] if decided else "suggested",
                evidence=tuple((lb.source, lb.model, lb.confidence) for lb in labels),
            )
        )
    return states


def accepted_by_type(project: Project, image_id: str) -> dict[str, list[str]]:
    """Accepted attribute names of an image per type, types in vocabulary order."""
    out: dict[str, list[str]] = {t: [] for t in ATTRIBUTE_TYPES}
    for state in attribute_states(project, image_id):
        if state.status == "accepted":
            out[state.type].append(state.attribute)
    return {t: sorted(names) for t, names in out.items() if names}


def images_with_attribute(
    project: Project,
    attribute: str,
    statuses: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    model: str | None = None,
) -> list[tuple[str, float | None, str]]:
    """(image id, best confidence, folded status) of images labelled with ``attribute``.

    Sorted by confidence, highest first, which is the order bulk review shows them in.
    A status filter applies to the folded status (a decision beats a suggestion).
    """
    rows = attributes_repo.images_with_attribute(project, attribute, sources, model)
    out = [r for r in rows if not statuses or r[2] in statuses]
    out.sort(key=lambda r: (-(r[1] if r[1] is not None else -1.0), r[0]))
    return out


def suggestions(project: Project, source: str, model: str = "") -> dict[str, set[str]]:
    """image id -> attributes one source (and model) suggested, whatever their status."""
    out: dict[str, set[str]] = {}
    for image_id, name in attributes_repo.suggested_names(project, source, model):
        out.setdefault(image_id, set()).add(name)
    return out


def reviewed(project: Project) -> dict[str, tuple[set[str], set[str]]]:
    """image id -> (accepted, rejected) attributes, for images with any decision."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for image_id, name, status in attributes_repo.decisions_by_name(project):
        accepted, rejected = out.setdefault(image_id, (set(), set()))
        (accepted if status == "accepted" else rejected).add(name)
        (rejected if status == "accepted" else accepted).discard(name)
    return out


def truth(project: Project, image_ids: Iterable[str] | None = None) -> dict[str, set[str]]:
    """image id -> accepted attributes, for reviewed images only: the evaluation truth."""
    wanted = None if image_ids is None else set(image_ids)
    return {
        image_id: accepted
        for image_id, (accepted, _) in reviewed(project).items()
        if wanted is None or image_id in wanted
    }


def label_models(project: Project) -> list[str]:
    """Models that have suggestions in the project, in name order."""
    return attributes_repo.label_models(project)


def label_counts(project: Project) -> dict[str, int]:
    """Label rows per status, for summaries."""
    return attributes_repo.label_counts(project)
