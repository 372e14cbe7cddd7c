"""The counts behind the Dashboard and ``cir-studio stats`` (read-only, portable SQL)."""

from __future__ import annotations

from studio.store.project import Project

_WRITTEN = "('submitted', 'accepted')"  # captions that count as written


def images_by_group(project: Project) -> list[tuple[str, str, int, int]]:
    """(category, split, images, missing images) per (category, split), sorted."""
    rows = project.db.execute(
        "SELECT category, split, count(*), sum(missing) FROM images GROUP BY category, split "
        "ORDER BY category, split"
    )
    return [(str(c or ""), str(s or ""), int(n), int(m or 0)) for c, s, n, m in rows]


def pairs_by_group(project: Project) -> list[tuple[str, str, int]]:
    rows = project.db.execute(
        "SELECT category, split, count(*) FROM pairs GROUP BY category, split "
        "ORDER BY category, split"
    )
    return [(str(c or ""), str(s or ""), int(n)) for c, s, n in rows]


def written_captions_by_group(project: Project) -> list[tuple[str, str, int]]:
    """(category, split, submitted or accepted captions) of pairs per group."""
    rows = project.db.execute(
        "SELECT p.category, p.split, count(*) FROM captions c JOIN pairs p ON p.id = c.pair_id "
        f"WHERE c.status IN {_WRITTEN} GROUP BY p.category, p.split ORDER BY p.category, p.split"
    )
    return [(str(c or ""), str(s or ""), int(n)) for c, s, n in rows]


def written_caption_texts(project: Project) -> list[str]:
    rows = project.db.execute(f"SELECT text FROM captions WHERE status IN {_WRITTEN} ORDER BY id")
    return [str(row[0]) for row in rows]


def captions_by_author_and_status(project: Project) -> list[tuple[str, str, int]]:
    rows = project.db.execute(
        "SELECT a.name, c.status, count(*) FROM captions c JOIN people a ON a.id = c.author_id "
        "GROUP BY a.name, c.status ORDER BY a.name, c.status"
    )
    return [(str(name), str(status), int(n)) for name, status, n in rows]


def caption_submissions(project: Project) -> list[tuple[str, str]]:
    """(actor, at) of every caption submission in the audit log, oldest first."""
    rows = project.db.execute(
        "SELECT actor, at FROM audit_log WHERE entity = 'caption' AND action = 'submit' ORDER BY id"
    )
    return [(str(actor), str(at)) for actor, at in rows]


def caption_reviews(project: Project) -> list[tuple[str, str, str | None, str | None]]:
    """(reviewer, accept/reject, before JSON, after JSON) of every review, oldest first."""
    rows = project.db.execute(
        "SELECT actor, action, before, after FROM audit_log WHERE entity = 'caption' "
        "AND action IN ('accept', 'reject') ORDER BY id"
    )
    return [(str(a), str(b), c, d) for a, b, c, d in rows]


def first_submissions_per_day(project: Project) -> list[tuple[str, str, int]]:
    """(actor, YYYY-MM-DD, captions first submitted by them that day), sorted."""
    rows = project.db.execute(
        "SELECT actor, substr(first, 1, 10) AS day, count(*) FROM ("
        "  SELECT actor, entity_id, min(at) AS first FROM audit_log "
        "  WHERE entity = 'caption' AND action = 'submit' GROUP BY actor, entity_id"
        ") AS firsts GROUP BY actor, day ORDER BY actor, day"
    )
    return [(str(actor), str(day), int(n)) for actor, day, n in rows]


def labels_by_type_and_status(project: Project) -> list[tuple[str, str, int]]:
    """(attribute type, status, labels): one label per (image, attribute, status)."""
    rows = project.db.execute(
        "SELECT v.type, l.status, count(*) FROM ("
        "  SELECT DISTINCT image_id, attribute_id, status FROM image_attributes"
        ") AS l JOIN attribute_vocab v ON v.id = l.attribute_id GROUP BY v.type, l.status "
        "ORDER BY v.type, l.status"
    )
    return [(str(kind), str(status), int(n)) for kind, status, n in rows]


def ratings_by_rater(project: Project) -> list[tuple[str, int, int]]:
    """(rater, items done, items assigned) over every sample, names sorted."""
    rows = project.db.execute(
        "SELECT p.name, sum(CASE WHEN a.status = 'done' THEN 1 ELSE 0 END), count(*) "
        "FROM rating_assignments a JOIN people p ON p.id = a.rater_id GROUP BY p.name "
        "ORDER BY p.name"
    )
    return [(str(name), int(done or 0), int(total)) for name, done, total in rows]
