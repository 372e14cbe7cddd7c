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
from typing import Any

from studio.captions.store import load_policy
from studio.errors import StudioError
from studio.store import Project
from studio.store.database import utc_now

KINDS = ("caption", "review", "attributes")


def _people(project: Project, names: Sequence[str], role: str) -> dict[str, int]:
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise StudioError("Name at least one person to assign work to.")
    if len(set(names)) != len(names):
        raise StudioError("A person is listed twice.")
    return {name: project.ensure_person(name, role).id for name in names}


def _load(project: Project, kind: str, people: dict[str, int]) -> dict[str, int]:
    rows = project.db.execute(
        "SELECT person_id, count(*) FROM team_assignments WHERE kind = ? GROUP BY 1", [kind]
    ).fetchall()
    by_id = dict(rows)
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
    if not rows:
        return 0
    before = project.db.execute("SELECT count(*) FROM team_assignments").fetchone()[0]
    project.db.conn.executemany(
        "INSERT OR IGNORE INTO team_assignments (person_id, kind, item, batch, assigned_by, "
        "assigned_at) VALUES (?, ?, ?, ?, ?, ?)",
        [(pid, kind, item, batch, actor, utc_now()) for pid, item, batch in rows],
    )
    after = project.db.execute("SELECT count(*) FROM team_assignments").fetchone()[0]
    return int(after - before)


def assign_captions(
    project: Project,
    names: Sequence[str],
    actor: str,
    category: str | None = None,
    per_person: int | None = None,
) -> dict[str, int]:
    """Spread the pairs that still need captions over ``names``; returns new pairs per person."""
    policy = load_policy(project)
    where = (
        "p.target_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM images i WHERE i.id IN "
        "(p.reference_id, p.target_id) AND i.missing = 1)"
    )
    params: list[Any] = []
    if category:
        where += " AND p.category = ?"
        params.append(category)
    with project.change(actor, "team.assign", "team_assignments", "caption") as record:
        people = _people(project, names, "annotator")
        load = _load(project, "caption", people)
        given = {name: 0 for name in people}
        authors: dict[int, set[str]] = defaultdict(set)
        for pair_id, name in project.db.execute(
            "SELECT c.pair_id, a.name FROM captions c JOIN people a ON a.id = c.author_id "
            "WHERE c.status IN ('submitted', 'accepted')"
        ):
            authors[pair_id].add(name)
        holders: dict[str, set[str]] = defaultdict(set)
        for item, name in project.db.execute(
            "SELECT t.item, p.name FROM team_assignments t JOIN people p ON p.id = t.person_id "
            "WHERE t.kind = 'caption'"
        ):
            holders[item].add(name)
        rows: list[tuple[int, str, str]] = []
        batch = f"category:{category}" if category else ""
        for pair_id, uid in project.db.execute(
            f"SELECT p.id, p.uid FROM pairs p WHERE {where} ORDER BY p.id", params
        ).fetchall():
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
        for item, name in project.db.execute(
            "SELECT t.item, p.name FROM team_assignments t JOIN people p ON p.id = t.person_id "
            "WHERE t.kind = 'review'"
        ):
            held[item].add(name)
        pairs: dict[str, set[str]] = defaultdict(set)
        sql = (
            "SELECT p.uid, a.name FROM captions c JOIN pairs p ON p.id = c.pair_id "
            "LEFT JOIN people a ON a.id = c.author_id WHERE c.status = 'submitted'"
        )
        params: list[Any] = []
        if category:
            sql += " AND p.category = ?"
            params.append(category)
        for uid, author in project.db.execute(sql + " ORDER BY p.id", params):
            pairs[uid].add(author or "")
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
    sql = (
        "SELECT DISTINCT l.image_id FROM image_attributes l JOIN images i ON i.id = "
        "l.image_id JOIN attribute_vocab v ON v.id = l.attribute_id WHERE i.missing = 0"
    )
    params: list[Any] = []
    if category:
        sql += " AND i.category = ?"
        params.append(category)
    if attribute:
        sql += " AND v.name = ?"
        params.append(attribute)
    batch = f"attribute:{attribute}" if attribute else f"category:{category}"
    with project.change(actor, "team.assign", "team_assignments", batch) as record:
        people = _people(project, names, "annotator")
        load = _load(project, "attributes", people)
        held = {
            row[0]
            for row in project.db.execute(
                "SELECT item FROM team_assignments WHERE kind = 'attributes' AND batch = ?", [batch]
            )
        }
        images = [row[0] for row in project.db.execute(sql + " ORDER BY 1", params)]
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


_OUTSTANDING = {
    "caption": (
        "SELECT count(*) FROM team_assignments t JOIN pairs p ON p.uid = t.item "
        "WHERE t.kind = 'caption' AND t.person_id = :pid AND NOT EXISTS (SELECT 1 FROM captions "
        "c WHERE c.pair_id = p.id AND c.author_id = :pid AND c.status != 'draft')"
    ),
    "review": (
        "SELECT count(*) FROM team_assignments t JOIN pairs p ON p.uid = t.item "
        "WHERE t.kind = 'review' AND t.person_id = :pid AND EXISTS (SELECT 1 FROM captions c "
        "WHERE c.pair_id = p.id AND c.status = 'submitted' "
        "AND coalesce(c.author_id, -1) != :pid)"
    ),
    "attributes": (
        "SELECT count(*) FROM team_assignments t WHERE t.kind = 'attributes' "
        "AND t.person_id = :pid AND EXISTS (SELECT 1 FROM image_attributes l "
        "JOIN attribute_vocab v ON v.id = l.attribute_id WHERE l.image_id = t.item "
        "AND (t.batch NOT LIKE 'attribute:%' OR 'attribute:' || v.name = t.batch) "
        "AND NOT EXISTS (SELECT 1 FROM image_attributes d WHERE d.image_id = l.image_id "
        "AND d.attribute_id = l.attribute_id AND d.status != 'suggested'))"
    ),
    "rating": "SELECT count(*) FROM rating_assignments WHERE rater_id = :pid "
    "AND status = 'pending'",
}


def team_progress(project: Project) -> list[PersonProgress]:
    """Per person with any assignment: assigned, outstanding, packages, last returned."""
    db = project.db
    people = db.execute(
        "SELECT id, name FROM people WHERE id IN (SELECT person_id FROM team_assignments "
        "UNION SELECT rater_id FROM rating_assignments UNION SELECT person_id FROM "
        "team_packages) ORDER BY name"
    ).fetchall()
    out = []
    for pid, name in people:
        assigned = dict(
            db.execute(
                "SELECT kind, count(*) FROM team_assignments WHERE person_id = ? GROUP BY 1", [pid]
            ).fetchall()
        )
        ratings = db.execute(
            "SELECT count(*) FROM rating_assignments WHERE rater_id = ?", [pid]
        ).fetchone()[0]
        if ratings:
            assigned["rating"] = ratings
        outstanding = {
            kind: int(db.execute(sql, {"pid": pid}).fetchone()[0])
            for kind, sql in _OUTSTANDING.items()
            if kind in assigned
        }
        packages = db.execute(
            "SELECT count(*), max(created_at), max(returned_at) FROM team_packages "
            "WHERE person_id = ?",
            [pid],
        ).fetchone()
        edits = db.execute(
            "SELECT count(*) FROM audit_log WHERE origin_copy IN (SELECT package_id FROM "
            "team_packages WHERE person_id = ?) AND action NOT LIKE 'team.%'",
            [pid],
        ).fetchone()[0]
        out.append(
            PersonProgress(
                name,
                {k: int(v) for k, v in assigned.items()},
                outstanding,
                int(packages[0]),
                packages[1],
                packages[2],
                int(edits),
            )
        )
    return out
