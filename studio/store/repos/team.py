"""Team work: assignments, handed-out packages, and what the coordinator's table shows.

Writes run inside the caller's ``project.change(...)``. The rules (who may get which pair,
how many per person) stay in ``studio.team.assignments``; these are its reads and writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.store.database import utc_now
from studio.store.project import Project

# -- assignments ---------------------------------------------------------------------


def assignment_load(project: Project, kind: str) -> dict[int, int]:
    """person id -> how many items of ``kind`` they hold."""
    rows = project.db.execute(
        "SELECT person_id, count(*) FROM team_assignments WHERE kind = :kind GROUP BY person_id",
        {"kind": kind},
    ).fetchall()
    return {int(pid): int(n) for pid, n in rows}


def assignment_holders(project: Project, kind: str) -> list[tuple[str, str]]:
    """(item, person name) of every assignment of ``kind``."""
    rows = project.db.execute(
        "SELECT t.item, p.name FROM team_assignments t JOIN people p ON p.id = t.person_id "
        "WHERE t.kind = :kind ORDER BY t.id",
        {"kind": kind},
    )
    return [(str(item), str(name)) for item, name in rows]


def assigned_items(project: Project, kind: str, batch: str) -> set[str]:
    rows = project.db.execute(
        "SELECT item FROM team_assignments WHERE kind = :kind AND batch = :batch ORDER BY id",
        {"kind": kind, "batch": batch},
    )
    return {str(row[0]) for row in rows}


def add_assignments(
    project: Project, kind: str, rows: Sequence[tuple[int, str, str]], actor: str
) -> int:
    """Add (person id, item, batch) assignments; one already there is kept. Returns new rows."""
    if not rows:
        return 0
    db = project.db
    before = int(db.execute("SELECT count(*) FROM team_assignments").fetchone()[0])
    now = utc_now()
    db.conn.executemany(
        "INSERT INTO team_assignments (person_id, kind, item, batch, assigned_by, assigned_at) "
        "VALUES (:person_id, :kind, :item, :batch, :actor, :now) "
        "ON CONFLICT (kind, item, person_id) DO NOTHING",
        [
            {"person_id": pid, "kind": kind, "item": item, "batch": batch, "actor": actor,
             "now": now}
            for pid, item, batch in rows
        ],
    )
    return int(db.execute("SELECT count(*) FROM team_assignments").fetchone()[0]) - before


def caption_authors(project: Project) -> list[tuple[int, str]]:
    """(pair id, author name) of every submitted or accepted caption."""
    rows = project.db.execute(
        "SELECT c.pair_id, a.name FROM captions c JOIN people a ON a.id = c.author_id "
        "WHERE c.status IN ('submitted', 'accepted') ORDER BY c.id"
    )
    return [(int(pair_id), str(name)) for pair_id, name in rows]


def pairs_to_caption(project: Project, category: str | None) -> list[tuple[int, str]]:
    """(pair id, uid) of pairs with a target whose images are both present, in id order."""
    sql = (
        "SELECT p.id, p.uid FROM pairs p WHERE p.target_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM images i WHERE i.id IN (p.reference_id, p.target_id) AND i.missing = 1)"
    )
    params: dict[str, Any] = {}
    if category:
        sql += " AND p.category = :category"
        params["category"] = category
    rows = project.db.execute(sql + " ORDER BY p.id", params).fetchall()
    return [(int(pair_id), str(uid)) for pair_id, uid in rows]


def submitted_caption_authors(project: Project, category: str | None) -> list[tuple[str, str]]:
    """(pair uid, author name or '') of every submitted caption, in pair order."""
    sql = (
        "SELECT p.uid, a.name FROM captions c JOIN pairs p ON p.id = c.pair_id "
        "LEFT JOIN people a ON a.id = c.author_id WHERE c.status = 'submitted'"
    )
    params: dict[str, Any] = {}
    if category:
        sql += " AND p.category = :category"
        params["category"] = category
    rows = project.db.execute(sql + " ORDER BY p.id, c.id", params)
    return [(str(uid), str(author or "")) for uid, author in rows]


def labelled_images(project: Project, category: str | None, attribute: str | None) -> list[str]:
    """Present images with a label (of ``attribute``, in ``category``), in id order."""
    sql = (
        "SELECT DISTINCT l.image_id FROM image_attributes l JOIN images i ON i.id = "
        "l.image_id JOIN attribute_vocab v ON v.id = l.attribute_id WHERE i.missing = 0"
    )
    params: dict[str, Any] = {}
    if category:
        sql += " AND i.category = :category"
        params["category"] = category
    if attribute:
        sql += " AND v.name = :attribute"
        params["attribute"] = attribute
    return [str(row[0]) for row in project.db.execute(sql + " ORDER BY l.image_id", params)]


def assigned_work(project: Project, person_id: int) -> list[tuple[str, str]]:
    """(kind, item) of a person's assignments, in the order they were handed out."""
    rows = project.db.execute(
        "SELECT kind, item FROM team_assignments WHERE person_id = :person_id ORDER BY id", {
            "person_id": person_id,
        }
    )
    return [(str(kind), str(item)) for kind, item in rows]


# -- progress ------------------------------------------------------------------------

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


def people_with_team_work(project: Project) -> list[tuple[int, str]]:
    """(id, name) of everyone with an assignment, a rating queue or a package, by name."""
    rows = project.db.execute(
        "SELECT id, name FROM people WHERE id IN (SELECT person_id FROM team_assignments "
        "UNION SELECT rater_id FROM rating_assignments UNION SELECT person_id FROM "
        "team_packages) ORDER BY name"
    )
    return [(int(pid), str(name)) for pid, name in rows]


def handed_out(project: Project, person_id: int) -> dict[str, int]:
    """kind -> items assigned to the person (``rating``: their rating queue)."""
    counts = {
        str(kind): int(n)
        for kind, n in project.db.execute(
            "SELECT kind, count(*) FROM team_assignments WHERE person_id = :person_id GROUP BY kind "
            "ORDER BY kind",
            {"person_id": person_id},
        )
    }
    ratings = int(
        project.db.execute(
            "SELECT count(*) FROM rating_assignments WHERE rater_id = :person_id", {"person_id": person_id}
        ).fetchone()[0]
    )
    if ratings:
        counts["rating"] = ratings
    return counts


def outstanding(project: Project, kind: str, person_id: int) -> int:
    """Items of ``kind`` assigned to the person whose work is not in this project yet."""
    return int(project.db.execute(_OUTSTANDING[kind], {"pid": person_id}).fetchone()[0])


def package_summary(project: Project, person_id: int) -> tuple[int, str | None, str | None]:
    """(packages handed out, last handed out at, last came back at) for a person."""
    row = project.db.execute(
        "SELECT count(*), max(created_at), max(returned_at) FROM team_packages WHERE person_id = :person_id",
        {"person_id": person_id},
    ).fetchone()
    return int(row[0]), row[1], row[2]


def edits_back(project: Project, person_id: int) -> int:
    """Audit rows made in the person's packages and merged back (merge rows left out)."""
    return int(
        project.db.execute(
            "SELECT count(*) FROM audit_log WHERE origin_copy IN (SELECT package_id FROM "
            "team_packages WHERE person_id = :person_id) AND action NOT LIKE 'team.%'",
            {"person_id": person_id},
        ).fetchone()[0]
    )


# -- packages ------------------------------------------------------------------------


def add_package(
    project: Project,
    package_id: str,
    person_id: int,
    path: str,
    created_at: str,
    handed_out_json: str,
) -> None:
    project.db.execute(
        "INSERT INTO team_packages (package_id, person_id, path, created_at, handed_out) "
        "VALUES (:package_id, :person_id, :path, :created_at, :handed_out_json)",
        {
            "package_id": package_id,
            "person_id": person_id,
            "path": path,
            "created_at": created_at,
            "handed_out_json": handed_out_json,
        },
    )


def package_returned_at(project: Project, package_id: str) -> tuple[bool, str | None]:
    """(whether the project knows the package, when it last came back)."""
    row = project.db.execute(
        "SELECT returned_at FROM team_packages WHERE package_id = :package_id", {"package_id": package_id}
    ).fetchone()
    return (False, None) if row is None else (True, row[0])


def note_package_return(project: Project, package_id: str, at: str, report_json: str) -> None:
    project.db.execute(
        "UPDATE team_packages SET returned_at = :at, merges = merges + 1, last_report = :report_json "
        "WHERE package_id = :package_id",
        {"at": at, "report_json": report_json, "package_id": package_id},
    )


# -- the rehearsal's reads (studio.team.rehearsal: tests and bench/bench_team.py) -----


def pair_ids(project: Project) -> list[int]:
    return [int(row[0]) for row in project.db.execute("SELECT id FROM pairs ORDER BY id")]


def pair_id(project: Project, uid: str) -> int:
    return int(project.db.execute("SELECT id FROM pairs WHERE uid = :uid", {"uid": uid}).fetchone()[0])


def attribute_ids(project: Project) -> dict[str, int]:
    rows = project.db.execute("SELECT name, id FROM attribute_vocab ORDER BY id")
    return {str(name): int(attribute_id) for name, attribute_id in rows}


def submitted_captions(project: Project, pair: int) -> list[tuple[int, str]]:
    """(caption id, author name) of the pair's submitted captions, in id order."""
    rows = project.db.execute(
        "SELECT c.id, a.name FROM captions c JOIN people a ON a.id = c.author_id "
        "WHERE c.pair_id = :pair AND c.status = 'submitted' ORDER BY c.id",
        {"pair": pair},
    ).fetchall()
    return [(int(caption_id), str(author)) for caption_id, author in rows]


def labelled_attributes(project: Project, image_id: str) -> list[str]:
    """Names of the attributes with a label on the image, sorted."""
    rows = project.db.execute(
        "SELECT DISTINCT v.name FROM image_attributes l JOIN attribute_vocab v "
        "ON v.id = l.attribute_id WHERE l.image_id = :image_id ORDER BY v.name",
        {"image_id": image_id},
    )
    return [str(row[0]) for row in rows]


def rating_samples(project: Project) -> list[str]:
    rows = project.db.execute("SELECT DISTINCT sample FROM rating_assignments ORDER BY sample")
    return [str(row[0]) for row in rows]
