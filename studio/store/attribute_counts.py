"""How many images each attribute has, by label status: where the bulk view can start."""

from __future__ import annotations

from studio.store.project import Project


def images_per_attribute(project: Project) -> dict[str, dict[str, int]]:
    """{attribute name: {label status: images}} for attributes with at least one label."""
    rows = project.db.execute(
        "SELECT v.name, l.status, count(*) FROM image_attributes AS l "
        "JOIN attribute_vocab AS v ON v.id = l.attribute_id GROUP BY v.name, l.status "
        "ORDER BY v.name, l.status"
    ).fetchall()
    counts: dict[str, dict[str, int]] = {}
    for name, status, count in rows:
        counts.setdefault(str(name), {})[str(status)] = int(count)
    return counts
