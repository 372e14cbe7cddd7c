"""Draw a blind rating sample: a share of each dataset, stratified, each item to k raters.

An *item* is one accepted turn of a transaction. Strata are (dataset, category, turn
index); each dataset contributes ``round(share × its items)`` (at least one), spread over
its strata by largest remainder so every stratum gets its proportional share ± 1. Each
item goes to ``per_item`` different raters, the least loaded first (ties by the seeded
draw); a rater never gets an item they were given in any sample. Each rater's order is
shuffled with their own seed. Drafts are not sampled: they are not yet part of a dataset.

Sampling again under the same name tops the sample up to the share and adds nothing when
it is already there, so new datasets can join a running study.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from studio.errors import StudioError
from studio.store import Project
from studio.store.repos import ratings as ratings_repo

Item = tuple[int, int]  # (transaction id, turn index)
Stratum = tuple[str, str, int]  # (dataset, category, turn index)


@dataclass(frozen=True)
class SampleOptions:
    raters: tuple[str, ...]
    name: str = "main"
    share: float = 0.2
    per_item: int = 2
    seed: int = 0

    def __post_init__(self) -> None:
        raters = tuple(r.strip() for r in self.raters if r.strip())
        object.__setattr__(self, "raters", raters)
        if not self.name.strip():
            raise StudioError("A sample needs a name.")
        if not 0.0 < self.share <= 1.0:
            raise StudioError(f"The share must lie in (0, 1], got {self.share}.")
        if self.per_item < 1:
            raise StudioError("Each item needs at least one rater.")
        if len(set(raters)) != len(raters):
            raise StudioError("A rater is listed twice.")
        if len(raters) < self.per_item:
            raise StudioError(
                f"{self.per_item} raters per item need at least {self.per_item} raters; "
                f"got {len(raters)} ({', '.join(raters) or 'none'})."
            )


@dataclass
class SampleSummary:
    name: str
    added_items: int
    added_assignments: int
    items_per_dataset: dict[str, tuple[int, int]] = field(default_factory=dict)  # (sampled, all)
    per_rater: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "sample": self.name,
            "added_items": self.added_items,
            "added_assignments": self.added_assignments,
            "items_per_dataset": {d: {"sampled": s, "items": n}
                                  for d, (s, n) in self.items_per_dataset.items()},
            "assignments_per_rater": self.per_rater,
            "notes": self.notes,
        }


def eligible_items(project: Project) -> dict[Stratum, list[Item]]:
    """Accepted turns by stratum, in id order (so the draw depends only on the data)."""
    rows = ratings_repo.accepted_turns(project)
    strata: dict[Stratum, list[Item]] = defaultdict(list)
    for dataset, category, turn, tid in rows:
        strata[(dataset, category, int(turn))].append((int(tid), int(turn)))
    return dict(strata)


def allocate(sizes: dict[Stratum, int], share: float) -> dict[Stratum, int]:
    """Per stratum, how many items: per dataset ``max(1, round(share·N))`` by largest remainder."""
    by_dataset: dict[str, list[Stratum]] = defaultdict(list)
    for stratum in sizes:
        by_dataset[stratum[0]].append(stratum)
    out: dict[Stratum, int] = {}
    for strata in by_dataset.values():
        strata.sort()
        total = sum(sizes[s] for s in strata)
        target = min(total, max(1, math.floor(share * total + 0.5)))
        exact = {s: sizes[s] * target / total for s in strata}
        floors = {s: math.floor(exact[s]) for s in strata}
        left = target - sum(floors.values())
        by_remainder = sorted(strata, key=lambda s: (-(exact[s] - floors[s]), s))
        for s in by_remainder[:left]:
            floors[s] += 1
        out.update(floors)
    return out


def sample_names(project: Project) -> list[str]:
    return ratings_repo.sample_names(project)


def rater_names(project: Project) -> list[str]:
    """Everyone with a rating queue in any sample, in name order."""
    return ratings_repo.rater_names(project)


def _sampled(project: Project, name: str) -> set[Item]:
    return ratings_repo.sampled_items(project, name)


def _seen_by(project: Project, rater_ids: dict[str, int]) -> dict[str, set[Item]]:
    """Every item each rater was ever given, in any sample."""
    return {name: ratings_repo.items_of_rater(project, person) for name, person in rater_ids.items()}


def _choose_raters(raters: Sequence[str], k: int, item: Item, seen: dict[str, set[Item]],
                   load: dict[str, int], rng: random.Random) -> list[str]:
    free = [r for r in raters if item not in seen[r]]
    draw = {r: rng.random() for r in free}
    free.sort(key=lambda r: (load[r], draw[r]))
    return free[:k]


def create_sample(project: Project, options: SampleOptions, actor: str) -> SampleSummary:
    """Draw (or top up) the sample ``options.name`` in one audited change."""
    strata = eligible_items(project)
    if not strata:
        raise StudioError("There are no accepted transaction turns to sample; import or "
                          "build transactions (and accept the drafts) first.")
    wanted = allocate({s: len(items) for s, items in strata.items()}, options.share)
    already = _sampled(project, options.name)
    new_items: list[Item] = []
    for stratum in sorted(strata):
        items = strata[stratum]
        have = sum(1 for item in items if item in already)
        free = [item for item in items if item not in already]
        need = max(0, wanted[stratum] - have)
        rng = random.Random(f"sample:{options.seed}:{options.name}:{stratum}")
        new_items.extend(rng.sample(free, min(need, len(free))))
    summary = SampleSummary(options.name, len(new_items), 0)
    with project.change(actor, "create sample", "rating_sample", options.name) as record:
        people = {r: project.ensure_person(r, role="rater").id for r in options.raters}
        seen = _seen_by(project, people)
        load = {r: 0 for r in options.raters}
        assigned: dict[str, list[Item]] = defaultdict(list)
        rng = random.Random(f"raters:{options.seed}:{options.name}")
        rng.shuffle(new_items)
        short = 0
        for item in new_items:
            chosen = _choose_raters(options.raters, options.per_item, item, seen, load, rng)
            short += len(chosen) < options.per_item
            for rater in chosen:
                load[rater] += 1
                seen[rater].add(item)
                assigned[rater].append(item)
        for rater, items in assigned.items():
            _insert_assignments(project, options, rater, people[rater], items)
        summary.added_assignments = sum(load.values())
        summary.per_rater = {r: _count(project, options.name, people[r]) for r in options.raters}
        if short:
            summary.notes.append(f"{short} items got fewer than {options.per_item} raters: "
                                 "every free rater had already seen them")
        record["after"] = summary.to_json()
    sampled = _sampled(project, options.name)
    for dataset in sorted({s[0] for s in strata}):
        items = [i for s, group in strata.items() if s[0] == dataset for i in group]
        summary.items_per_dataset[dataset] = (sum(i in sampled for i in items), len(items))
    return summary


def _insert_assignments(project: Project, options: SampleOptions, rater: str, person: int,
                        items: list[Item]) -> None:
    """Append ``items`` to the rater's queue in an order shuffled with the rater's seed."""
    order = sorted(items)
    random.Random(f"order:{options.seed}:{options.name}:{rater}").shuffle(order)
    ratings_repo.add_to_queue(project, options.name, person, order)


def _count(project: Project, name: str, person: int) -> int:
    return ratings_repo.queue_size(project, name, person)
