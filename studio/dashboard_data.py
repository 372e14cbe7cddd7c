"""What the Dashboard's charts show, read from a project in one call (Qt-free).

- captions per day per annotator: the day each caption was first submitted (from the
  audit log, so a caption undone and submitted again counts once, on its first day);
- labels decided per attribute type: one label is one (image, attribute), whatever
  sources suggested it (a decision covers them all);
- ratings done against assigned, per rater, over every rating sample;
- the totals of every table people fill.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.store import Project
from studio.store.repos import stats as stats_repo

LABEL_STATUSES = ("accepted", "rejected", "suggested")


@dataclass
class DashboardData:
    totals: dict[str, int] = field(default_factory=dict)
    captions_per_day: dict[str, dict[str, int]] = field(default_factory=dict)  # who → day → n
    labels_per_type: dict[str, dict[str, int]] = field(default_factory=dict)  # type → status
    ratings: dict[str, tuple[int, int]] = field(default_factory=dict)  # rater → (done, assigned)

    @property
    def days(self) -> list[str]:
        return sorted({day for per_day in self.captions_per_day.values() for day in per_day})


def dashboard_data(project: Project) -> DashboardData:
    return DashboardData(
        totals=project.table_counts(),
        captions_per_day=captions_per_day(project),
        labels_per_type=labels_per_type(project),
        ratings=ratings_progress(project),
    )


def captions_per_day(project: Project) -> dict[str, dict[str, int]]:
    """{annotator: {YYYY-MM-DD: captions first submitted that day}}, names sorted."""
    rows = stats_repo.first_submissions_per_day(project)
    out: dict[str, dict[str, int]] = {}
    for actor, day, count in rows:
        out.setdefault(str(actor), {})[str(day)] = int(count)
    return out


def labels_per_type(project: Project) -> dict[str, dict[str, int]]:
    """{attribute type: {accepted, rejected, suggested: labels}}, types in vocabulary order."""
    from studio.attributes.records import ATTRIBUTE_TYPES

    rows = stats_repo.labels_by_type_and_status(project)
    found: dict[str, dict[str, int]] = {}
    for kind, status, count in rows:
        found.setdefault(str(kind), dict.fromkeys(LABEL_STATUSES, 0))[str(status)] = int(count)
    order = [t for t in ATTRIBUTE_TYPES if t in found] + sorted(set(found) - set(ATTRIBUTE_TYPES))
    return {kind: found[kind] for kind in order}


def ratings_progress(project: Project) -> dict[str, tuple[int, int]]:
    """{rater: (items rated done, items assigned)} over every sample, names sorted."""
    return {name: (done, total) for name, done, total in stats_repo.ratings_by_rater(project)}
