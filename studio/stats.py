"""Project statistics shared by the Dashboard and ``cir-studio stats``."""

from __future__ import annotations

from studio.store import Project


def image_counts_by_category_split(project: Project) -> dict[str, dict[str, int]]:
    """{category: {split: image count}}, categories and splits in sorted order."""
    counts: dict[str, dict[str, int]] = {}
    rows = project.db.execute(
        "SELECT category, split, count(*) FROM images GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    for category, split, count in rows:
        counts.setdefault(category or "(none)", {})[split or "(none)"] = int(count)
    return counts
