"""Who does what: caption queues, review batches and attribute batches per person.

An assignment is a row of ``team_assignments``: (person, kind, item) with ``item`` a
pair's uid (kinds ``caption`` and ``review``) or an image id (kind ``attributes``).
Rating work needs no new table: a blind rating sample already gives every rater their
own queue (``studio.quality.sampling``).

Caption queues respect the project's rule "N captions per pair, each from a different
person" *across* people: a pair is handed to at most as many people as it still lacks
captions, never to someone who already captioned it or already holds it. Handing out
again adds only what is still missing, so assigning twice changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from studio.captions.store import load_policy
from studio.errors import StudioError
from studio.store import Project
from studio.store.repos import team as team_repo

KINDS = ("caption", "review", "attributes")


def _people(project: Project, names: Sequence[str], role: str) -> dict[str, int]:
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise StudioError("Name at least one person to assign work to.")
    if len(set(names)) != len(names):
        raise StudioError("A person is listed twice.")
    return {name: project.ensure_person(name, role).id for name in names}


def _load(project: Project, kind: str, people: dict[str, int]) -> dict[str, int]:
    by_id = team_repo.assignment_load(project, kind)
    return {name: int(by_id.get(pid, 0)) for name, pid in people.items()}


def _pick(candidates: list[str], load: dict[str, int], k: int) -> list[str]:
    chosen = sorted(candidates, key=lambda name: (load[name], name))[:k]
    for name in chosen:
        load[name] += 1
    return chosen


def _give(
    chosen: list[str],
    people: dict[str, int],
    given: dict[str, int],
    rows: list[tuple[int, str, str]],
    item: str,
    batch: str,
) -> None:
    """Record ``item`` for each chosen person: one assignment row and one more in ``given``."""
    for name in chosen:
        given[name] += 1
        rows.append((people[name], item, batch))


def _insert(project: Project, kind: str, rows: list[tuple[int, str, str]], actor: str) -> int:
    return team_repo.add_assignments(project, kind, rows, actor)


def assign_captions(
    project: Project,
    names: Sequence[str],
    actor: str,
    category: str | None = None,
    per_person: int | None = None,
) -> dict[str, int]:
    """Spread the pairs that still need captions over ``names``; returns new pairs per person."""
    policy = load_policy(project)
    with project.change(actor, "team.assign", "team_assignments", "caption") as record:
        people = _people(project, names, "annotator")
        load = _load(project, "caption", people)
        given = {name: 0 for name in people}
        authors: dict[int, set[str]] = defaultdict(set)
        for pair_id, name in team_repo.caption_authors(project):
            authors[pair_id].add(name)
        holders: dict[str, set[str]] = defaultdict(set)
        for item, name in team_repo.assignment_holders(project, "caption"):
            holders[item].add(name)
        rows: list[tuple[int, str, str]] = []
        batch = f"category:{category}" if category else ""
        for pair_id, uid in team_repo.pairs_to_caption(project, category):
            done = authors.get(pair_id, set())
            # holders who already wrote their caption count once, not twice
            need = policy.per_pair - len(done | holders[uid])
            if need <= 0:
                continue
            free = [
                n
                for n in people
                if n not in done
                and n not in holders[uid]
                and (per_person is None or given[n] < per_person)
            ]
            _give(_pick(free, load, need), people, given, rows, uid, batch)
        _insert(project, "caption", rows, actor)
        record["after"] = given
    return given


def assign_reviews(
    project: Project,
    names: Sequence[str],
    actor: str,
    category: str | None = None,
    per_pair: int = 1,
) -> dict[str, int]:
    """Each pair with submitted captions goes to ``per_pair`` reviewers who wrote none."""
    if per_pair < 1:
        raise StudioError("Each pair needs at least one reviewer.")
    with project.change(actor, "team.assign", "team_assignments", "review") as record:
        people = _people(project, names, "reviewer")
        load = _load(project, "review", people)
        given = {name: 0 for name in people}
        held: dict[str, set[str]] = defaultdict(set)
        for item, name in team_repo.assignment_holders(project, "review"):
            held[item].add(name)
        pairs: dict[str, set[str]] = defaultdict(set)
        for uid, author in team_repo.submitted_caption_authors(project, category):
            pairs[uid].add(author)
        rows: list[tuple[int, str, str]] = []
        batch = f"category:{category}" if category else ""
        for uid, authors in pairs.items():
            need = per_pair - len(held[uid])
            free = [n for n in people if n not in authors and n not in held[uid]]
            _give(_pick(free, load, max(0, need)), people, given, rows, uid, batch)
        _insert(project, "review", rows, actor)
        record["after"] = given
    return given


def assign_attributes(
    project: Project,
    names: Sequence[str],
    actor: str,
    category: str | None = None,
    attribute: str | None = None,
) -> dict[str, int]:
    """A batch of images whose labels need a decision, by category or by attribute."""
    if not category and not attribute:
        raise StudioError("Say which batch: --category NAME or --attribute NAME.")
    batch = f"attribute:{attribute}" if attribute else f"category:{category}"
    with project.change(actor, "team.assign", "team_assignments", batch) as record:
        people = _people(project, names, "annotator")
        load = _load(project, "attributes", people)
        held = team_repo.assigned_items(project, "attributes", batch)
        images = team_repo.labelled_images(project, category, attribute)
        if category and not attribute:  # outfit pictures of the category are work too
            from studio.store.repos.outfits import picture_ids_in_category

            images = sorted({*images, *picture_ids_in_category(project, category)})
        if not images:
            raise StudioError(f"No labelled images match {batch}; suggest attributes first.")
        given = {name: 0 for name in people}
        rows: list[tuple[int, str, str]] = []
        for image_id in images:
            if image_id in held:
                continue
            _give(_pick(list(people), load, 1), people, given, rows, image_id, batch)
        _insert(project, "attributes", rows, actor)
        record["after"] = given
    return given


@dataclass(frozen=True)
class PersonProgress:
    """One person's team work as the coordinator sees it."""

    name: str
    assigned: dict[str, int]  # kind -> items assigned
    outstanding: dict[str, int]  # kind -> items whose work is not in this project yet
    packages: int
    handed_out_at: str | None
    came_back_at: str | None
    edits_back: int = 0  # audit rows made in this person's packages and merged back

    @property
    def total_outstanding(self) -> int:
        return sum(self.outstanding.values())


def team_progress(project: Project) -> list[PersonProgress]:
    """Per person with any assignment: assigned, outstanding, packages, last returned."""
    out = []
    for pid, name in team_repo.people_with_team_work(project):
        assigned = team_repo.handed_out(project, pid)
        outstanding: dict[str, int] = {
            kind: team_repo.outstanding(project, kind, pid)
            for kind in ("caption", "review", "attributes", "rating")
            if kind in assigned
        }
        packages, handed_out_at, came_back_at = team_repo.package_summary(project, pid)
        out.append(
            PersonProgress(
                name,
                assigned,
                outstanding,
                packages,
                handed_out_at,
                came_back_at,
                team_repo.edits_back(project, pid),
            )
        )
    return out
