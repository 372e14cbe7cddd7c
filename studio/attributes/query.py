"""Reading labels, for the Attributes pane and for other panes, sessions and simulators.

Everything here is read-only. "Truth" for evaluation is what people decided: an image's
accepted attributes, counted only on images where someone reviewed at least one label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.attributes.records import ATTRIBUTE_TYPES, AttributeState, Label
from studio.store import Project

_LABEL_SELECT = (
    "SELECT l.image_id, v.name AS attribute, v.type, l.source, l.status, l.confidence, "
    "l.model, v.id AS attribute_id "
    "FROM image_attributes AS l JOIN attribute_vocab AS v ON v.id = l.attribute_id "
)


def _in(column: str, values: Sequence[str] | None) -> tuple[str, list[str]]:
    if not values:
        return "", []
    return f" AND {column} IN ({','.join('?' * len(values))})", list(values)


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
    status_sql, status_args = _in("l.status", statuses)
    source_sql, source_args = _in("l.source", sources)
    rows = project.db.query(
        _LABEL_SELECT + "WHERE l.image_id = ?" + status_sql + source_sql
        + " ORDER BY v.type, v.name, l.source, l.model",
        [image_id, *status_args, *source_args],
    )
    return [_label(row) for row in rows]


def all_labels(project: Project) -> Iterable[Label]:
    """Every label of the project, image by image (for export)."""
    for row in project.db.query(
        _LABEL_SELECT + "ORDER BY l.image_id, v.type, v.name, l.source, l.model"
    ):
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
    source_sql, source_args = _in("l.source", sources)
    model_sql, model_args = ("", []) if model is None else (" AND l.model = ?", [model])
    rows = project.db.execute(
        "SELECT l.image_id, max(l.confidence), "
        "coalesce(max(CASE WHEN l.status != 'suggested' THEN l.status END), 'suggested') "
        "FROM image_attributes AS l JOIN attribute_vocab AS v ON v.id = l.attribute_id "
        "WHERE v.name = ?" + source_sql + model_sql + " GROUP BY l.image_id",
        [attribute, *source_args, *model_args],
    ).fetchall()
    out = [(str(r[0]), r[1], str(r[2])) for r in rows if not statuses or r[2] in statuses]
    out.sort(key=lambda r: (-(r[1] if r[1] is not None else -1.0), r[0]))
    return out


def suggestions(project: Project, source: str, model: str = "") -> dict[str, set[str]]:
    """image id -> attributes one source (and model) suggested, whatever their status."""
    out: dict[str, set[str]] = {}
    for image_id, name in project.db.execute(
        "SELECT l.image_id, v.name FROM image_attributes AS l "
        "JOIN attribute_vocab AS v ON v.id = l.attribute_id WHERE l.source = ? AND l.model = ?",
        [source, model],
    ):
        out.setdefault(image_id, set()).add(name)
    return out


def reviewed(project: Project) -> dict[str, tuple[set[str], set[str]]]:
    """image id -> (accepted, rejected) attributes, for images with any decision."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for image_id, name, status in project.db.execute(
        "SELECT l.image_id, v.name, l.status FROM image_attributes AS l "
        "JOIN attribute_vocab AS v ON v.id = l.attribute_id WHERE l.status != 'suggested' "
        "ORDER BY l.updated_at, l.id"
    ):
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
    rows = project.db.execute(
        "SELECT DISTINCT model FROM image_attributes WHERE source = 'model' ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def label_counts(project: Project) -> dict[str, int]:
    """Label rows per status, for summaries."""
    rows = project.db.execute(
        "SELECT status, count(*) FROM image_attributes GROUP BY status"
    ).fetchall()
    return {str(status): int(count) for status, count in rows}
