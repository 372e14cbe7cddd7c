"""Attributes: the vocabulary (``attribute_vocab``) and image labels (``image_attributes``).

A label row is one source's (person, text, model …) statement that an image has an
attribute, with its status (suggested, accepted, rejected) and confidence. Rows come back
as ``dict`` s or tuples; ``studio.attributes`` builds its records and holds the rules
(folding sources into one decision, vocabulary clashes). Writes run in the caller's
``project.change``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from studio.store.binds import in_list
from studio.store.project import Project

# -- vocabulary ----------------------------------------------------------------------

_VOCAB = "SELECT id, name, type, synonyms FROM attribute_vocab"


def vocabulary_rows(project: Project) -> list[dict[str, Any]]:
    """All attributes, grouped by type then by name."""
    return list(project.db.query(_VOCAB + " ORDER BY type, name"))


def vocabulary_row(project: Project, name: str) -> dict[str, Any] | None:
    rows = list(project.db.query(_VOCAB + " WHERE name = :name", {"name": name}))
    return rows[0] if rows else None


def has_vocabulary(project: Project) -> bool:
    return project.db.execute("SELECT 1 FROM attribute_vocab LIMIT 1").fetchone() is not None


def add_attribute(project: Project, name: str, type_: str, synonyms: str, now: str) -> int:
    """Insert one attribute (``synonyms`` as JSON text); returns its id."""
    row = project.db.execute(
        "INSERT INTO attribute_vocab (name, type, synonyms, created_at) VALUES (:name, :type, :synonyms, :now) "
        "RETURNING id",
        {"name": name, "type": type_, "synonyms": synonyms, "now": now},
    ).fetchone()
    return int(row[0])


def update_attribute(
    project: Project, attribute_id: int, name: str, type_: str, synonyms: str
) -> None:
    project.db.execute(
        "UPDATE attribute_vocab SET name = :name, type = :type, synonyms = :synonyms WHERE id = :attribute_id",
        {"name": name, "type": type_, "synonyms": synonyms, "attribute_id": attribute_id},
    )


def update_attribute_by_name(project: Project, name: str, type_: str, synonyms: str) -> None:
    project.db.execute(
        "UPDATE attribute_vocab SET type = :type, synonyms = :synonyms WHERE name = :name",
        {"type": type_, "synonyms": synonyms, "name": name},
    )


def merge_attribute_into(project: Project, source_id: int, target_id: int) -> None:
    """Move ``source_id``'s labels onto ``target_id`` and delete the source attribute.

    A label row the target already has (same image, source and model) is not moved: the
    target's row takes the source's decision where it has none and the higher
    confidence, and the source's row goes with its attribute.
    """
    db = project.db
    db.execute(
        "UPDATE image_attributes SET attribute_id = :target_id WHERE attribute_id = :source_id AND NOT EXISTS "
        "(SELECT 1 FROM image_attributes AS x WHERE x.attribute_id = :target_id "
        "AND x.image_id = image_attributes.image_id AND x.source = image_attributes.source "
        "AND x.model = image_attributes.model)",
        {"target_id": target_id, "source_id": source_id},
    )
    db.execute(
        """UPDATE image_attributes AS t SET
             status = CASE WHEN t.status = 'suggested' THEN s.status ELSE t.status END,
             confidence = CASE WHEN coalesce(t.confidence, 0) >= coalesce(s.confidence, 0)
                               THEN coalesce(t.confidence, 0) ELSE coalesce(s.confidence, 0) END
           FROM image_attributes AS s
           WHERE s.attribute_id = :source_id AND t.attribute_id = :target_id AND s.image_id = t.image_id
             AND s.source = t.source AND s.model = t.model""",
        {"source_id": source_id, "target_id": target_id},
    )
    db.execute("DELETE FROM attribute_vocab WHERE id = :source_id", {"source_id": source_id})


def set_synonyms(project: Project, attribute_id: int, synonyms: str) -> None:
    project.db.execute(
        "UPDATE attribute_vocab SET synonyms = :synonyms WHERE id = :attribute_id", {
            "synonyms": synonyms,
            "attribute_id": attribute_id,
        }
    )


def remove_attribute(project: Project, attribute_id: int) -> int:
    """Delete an attribute and (by cascade) its labels; returns how many labels went."""
    labels = project.db.execute(
        "SELECT count(*) FROM image_attributes WHERE attribute_id = :attribute_id", {
            "attribute_id": attribute_id,
        }
    ).fetchone()[0]
    project.db.execute("DELETE FROM attribute_vocab WHERE id = :attribute_id", {"attribute_id": attribute_id})
    return int(labels)


# -- labels: reading -----------------------------------------------------------------

_LABEL_SELECT = (
    "SELECT l.image_id, v.name AS attribute, v.type, l.source, l.status, l.confidence, "
    "l.model, v.id AS attribute_id "
    "FROM image_attributes AS l JOIN attribute_vocab AS v ON v.id = l.attribute_id "
)


def _in(column: str, values: Sequence[str] | None) -> tuple[str, dict[str, str]]:
    if not values:
        return "", {}
    names, params = in_list(column.replace(".", "_"), values)
    return f" AND {column} IN ({names})", params


def any_labels(project: Project) -> bool:
    return project.db.execute("SELECT 1 FROM image_attributes LIMIT 1").fetchone() is not None


def label_rows_of_image(
    project: Project,
    image_id: str,
    statuses: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Label rows (image_id, attribute, type, source, status, confidence, model,
    attribute_id) of one image, by type, name, source and model."""
    status_sql, status_args = _in("l.status", statuses)
    source_sql, source_args = _in("l.source", sources)
    return list(
        project.db.query(
            _LABEL_SELECT + "WHERE l.image_id = :image_id" + status_sql + source_sql
            + " ORDER BY v.type, v.name, l.source, l.model",
            {"image_id": image_id, **status_args, **source_args},
        )
    )


def all_label_rows(project: Project) -> Iterator[dict[str, Any]]:
    """Every label row of the project, image by image."""
    yield from project.db.query(
        _LABEL_SELECT + "ORDER BY l.image_id, v.type, v.name, l.source, l.model"
    )


def images_with_attribute(
    project: Project,
    attribute: str,
    sources: Sequence[str] | None = None,
    model: str | None = None,
) -> list[tuple[str, float | None, str]]:
    """(image id, best confidence, folded status) of images labelled with ``attribute``;
    the folded status is a decision where there is one, else 'suggested'."""
    source_sql, source_args = _in("l.source", sources)
    model_sql, model_args = ("", {}) if model is None else (" AND l.model = :model", {"model": model})
    rows = project.db.execute(
        "SELECT l.image_id, max(l.confidence), "
        "coalesce(max(CASE WHEN l.status != 'suggested' THEN l.status END), 'suggested') "
        "FROM image_attributes AS l JOIN attribute_vocab AS v ON v.id = l.attribute_id "
        "WHERE v.name = :attribute" + source_sql + model_sql
        + " GROUP BY l.image_id ORDER BY l.image_id",
        {"attribute": attribute, **source_args, **model_args},
    ).fetchall()
    return [(str(r[0]), r[1], str(r[2])) for r in rows]


def suggested_names(project: Project, source: str, model: str) -> list[tuple[str, str]]:
    """(image id, attribute name) of every row of one source and model."""
    rows = project.db.execute(
        "SELECT l.image_id, v.name FROM image_attributes AS l "
        "JOIN attribute_vocab AS v ON v.id = l.attribute_id WHERE l.source = :source AND l.model = :model "
        "ORDER BY l.image_id, v.name",
        {"source": source, "model": model},
    )
    return [(row[0], row[1]) for row in rows]


def decisions_by_name(project: Project) -> list[tuple[str, str, str]]:
    """(image id, attribute name, status) of every decided row, oldest decision first."""
    rows = project.db.execute(
        "SELECT l.image_id, v.name, l.status FROM image_attributes AS l "
        "JOIN attribute_vocab AS v ON v.id = l.attribute_id WHERE l.status != 'suggested' "
        "ORDER BY l.updated_at, l.id"
    )
    return [(row[0], row[1], row[2]) for row in rows]


def decisions(project: Project) -> list[tuple[str, int, str]]:
    """(image id, attribute id, status) of every decided row, oldest decision first."""
    rows = project.db.execute(
        "SELECT image_id, attribute_id, status FROM image_attributes "
        "WHERE status != 'suggested' ORDER BY updated_at, id"
    )
    return [(row[0], int(row[1]), row[2]) for row in rows]


def accepted_or_text_labels(project: Project) -> list[tuple[str, str, str]]:
    """(image id, attribute, type) of labels accepted by a person or read from text."""
    rows = project.db.execute(
        "SELECT a.image_id, v.name, v.type FROM image_attributes a "
        "JOIN attribute_vocab v ON v.id = a.attribute_id "
        "WHERE a.status = 'accepted' OR (a.status = 'suggested' AND a.source = 'text') "
        "ORDER BY a.image_id, v.name"
    ).fetchall()
    return [(row[0], row[1], row[2]) for row in rows]


def unrejected_labels(project: Project) -> list[tuple[str, str, str, str, float]]:
    """(image id, attribute, source, status, confidence or 0) of labels not rejected."""
    rows = project.db.execute(
        "SELECT l.image_id, v.name, l.source, l.status, coalesce(l.confidence, 0) "
        "FROM image_attributes AS l JOIN attribute_vocab AS v ON v.id = l.attribute_id "
        "WHERE l.status != 'rejected' ORDER BY l.image_id, v.name, l.source, l.model"
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], float(r[4])) for r in rows]


def label_models(project: Project) -> list[str]:
    """Models that have suggestions in the project, in name order."""
    rows = project.db.execute(
        "SELECT DISTINCT model FROM image_attributes WHERE source = 'model' ORDER BY model"
    ).fetchall()
    return [r[0] for r in rows]


def label_counts(project: Project) -> dict[str, int]:
    """Label rows per status."""
    rows = project.db.execute(
        "SELECT status, count(*) FROM image_attributes GROUP BY status ORDER BY status"
    ).fetchall()
    return {str(status): int(count) for status, count in rows}


def vocabulary_with_statuses(
    project: Project, image_id: str, names: Sequence[str]
) -> list[dict[str, Any]]:
    """The vocabulary rows of ``names`` (as ``vocabulary_row``), each with a ``status``
    column: one row per row of (image, attribute), latest change first (as
    ``statuses_newest_first``), or one row with status None where the image has none.
    One statement: inside a write it goes to the server with the transaction's BEGIN."""
    marks, params = in_list("name", names)
    return list(
        project.db.query(
            "SELECT v.id, v.name, v.type, v.synonyms, ia.status FROM attribute_vocab v "
            "LEFT JOIN image_attributes ia ON ia.attribute_id = v.id AND ia.image_id = :image_id "
            f"WHERE v.name IN ({marks}) ORDER BY v.id, ia.updated_at DESC, ia.id DESC",
            {"image_id": image_id, **params},
        )
    )


def statuses_newest_first(project: Project, image_id: str, attribute_id: int) -> list[str]:
    """The statuses of every row of one (image, attribute), latest change first."""
    rows = project.db.execute(
        "SELECT status FROM image_attributes WHERE image_id = :image_id AND attribute_id = :attribute_id "
        "ORDER BY updated_at DESC, id DESC",
        {"image_id": image_id, "attribute_id": attribute_id},
    ).fetchall()
    return [r[0] for r in rows]


def source_rows(
    project: Project, source: str, model: str, image_ids: Sequence[str]
) -> list[tuple[str, int, str, float | None]]:
    """(image id, attribute id, status, confidence) of one source's rows on the images."""
    out: list[tuple[str, int, str, float | None]] = []
    images = list(image_ids)
    for start in range(0, len(images), 500):
        chunk = images[start : start + 500]
        marks, chunk_args = in_list("image", chunk)
        for row in project.db.execute(
            "SELECT image_id, attribute_id, status, confidence FROM image_attributes "
            f"WHERE source = :source AND model = :model AND image_id IN ({marks})",
            {"source": source, "model": model, **chunk_args},
        ):
            out.append((row[0], int(row[1]), row[2], row[3]))
    return out


# -- labels: writing -----------------------------------------------------------------


def replace_source_rows(
    project: Project,
    source: str,
    model: str,
    *,
    added: Iterable[tuple[str, int, float | None, str]],
    updated: Iterable[tuple[str, int, float | None]],
    removed: Iterable[tuple[str, int]],
    now: str,
) -> None:
    """Apply one source's new rows ``(image, attribute, confidence, status)``, changed
    confidences ``(image, attribute, confidence)`` and removals ``(image, attribute)``."""
    conn = project.db.conn
    conn.executemany(
        "INSERT INTO image_attributes (image_id, attribute_id, source, model, confidence, "
        "status, updated_at) VALUES (:image_id, :attribute_id, :source, :model, :confidence, "
        ":status, :now)",
        [
            {"image_id": i, "attribute_id": a, "source": source, "model": model,
             "confidence": c, "status": s, "now": now}
            for i, a, c, s in added
        ],
    )
    conn.executemany(
        "UPDATE image_attributes SET confidence = :confidence, updated_at = :now "
        "WHERE image_id = :image_id AND attribute_id = :attribute_id AND source = :source "
        "AND model = :model",
        [
            {"confidence": c, "now": now, "image_id": i, "attribute_id": a, "source": source,
             "model": model}
            for i, a, c in updated
        ],
    )
    conn.executemany(
        "DELETE FROM image_attributes WHERE image_id = :image_id "
        "AND attribute_id = :attribute_id AND source = :source AND model = :model",
        [
            {"image_id": i, "attribute_id": a, "source": source, "model": model}
            for i, a in removed
        ],
    )


def decide(project: Project, image_id: str, attribute_id: int, status: str, now: str) -> None:
    """Set every row of one (image, attribute) to ``status``: a decision is about the fact.

    Deciding a fact no source suggested records it as a person's label; un-deciding
    ('suggested') removes a person's own label.
    """
    db = project.db  # nothing here is read back: sent with the COMMIT on PostgreSQL
    if status == "suggested":
        db.defer(
            "DELETE FROM image_attributes WHERE image_id = :image_id AND attribute_id = :attribute_id "
            "AND source = 'person'",
            {"image_id": image_id, "attribute_id": attribute_id},
        )
    db.defer(
        "UPDATE image_attributes SET status = :status, updated_at = :now "
        "WHERE image_id = :image_id AND attribute_id = :attribute_id",
        {"status": status, "now": now, "image_id": image_id, "attribute_id": attribute_id},
    )
    if status != "suggested":
        db.defer(
            "INSERT INTO image_attributes (image_id, attribute_id, source, model, confidence, "
            "status, updated_at) SELECT :image_id, :attribute_id, 'person', '', 1.0, :status, :now WHERE NOT EXISTS "
            "(SELECT 1 FROM image_attributes WHERE image_id = :image_id AND attribute_id = :attribute_id)",
            {"image_id": image_id, "attribute_id": attribute_id, "status": status, "now": now},
        )


def upsert_label(
    project: Project,
    image_id: object,
    attribute_id: int | None,
    source: object,
    model: object,
    confidence: object,
    status: object,
    now: str,
) -> bool:
    """Store one label row, replacing the same (image, attribute, source, model) row's
    confidence and status; returns whether anything changed. (Values as parsed from a
    checked file: text, and a number or None for ``confidence``.)"""
    # "changed" spelled out null-safely (IS DISTINCT FROM needs SQLite 3.39)
    row = project.db.execute(
        "INSERT INTO image_attributes (image_id, attribute_id, source, model, confidence,"
        " status, updated_at) VALUES (:image_id, :attribute_id, :source, :model, :confidence, :status, :now) "
        "ON CONFLICT (image_id, attribute_id, source, model) DO UPDATE SET "
        "confidence = excluded.confidence, status = excluded.status, "
        "updated_at = excluded.updated_at WHERE image_attributes.status <> excluded.status "
        "OR (image_attributes.confidence IS NULL) <> (excluded.confidence IS NULL) "
        "OR image_attributes.confidence <> excluded.confidence RETURNING 1",
        {
            "image_id": image_id,
            "attribute_id": attribute_id,
            "source": source,
            "model": model,
            "confidence": confidence,
            "status": status,
            "now": now,
        },
    ).fetchone()
    return row is not None
