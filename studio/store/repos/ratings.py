"""Ratings and rating samples: raters' queues (``rating_assignments``) and their scores.

An item is one transaction turn ``(transaction id, turn index)``. Scores are the columns
of ``SCORE_COLUMNS`` (1–5 or NULL); ``studio.quality.criteria`` names the same keys.
Writes run in the caller's ``project.change``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studio.store.project import Project

SCORE_COLUMNS = ("accuracy", "historical_awareness", "granularity", "consistency", "coverage")
Item = tuple[int, int]


# -- a rater's queue -------------------------------------------------------------------


def assignment(project: Project, assignment_id: int) -> dict[str, Any] | None:
    """transaction_id, turn_index, order_key, status, sample, rater_id and rater (name)."""
    rows = list(
        project.db.query(
            "SELECT a.transaction_id, a.turn_index, a.order_key, a.status, a.sample, "
            "a.rater_id, p.name AS rater "
            "FROM rating_assignments a JOIN people p ON p.id = a.rater_id WHERE a.id = :assignment_id",
            {"assignment_id": assignment_id},
        )
    )
    return rows[0] if rows else None


def assignment_with_scores(
    project: Project, assignment_id: int
) -> tuple[dict[str, Any], dict[str, Any] | None, str] | None:
    """``assignment``'s row, the rating's scores (None when none is saved yet) and its
    note, in one statement (a rating's autosave reads both before it writes)."""
    columns = ", ".join(f"r.{k}" for k in SCORE_COLUMNS)
    rows = list(
        project.db.query(
            "SELECT a.transaction_id, a.turn_index, a.order_key, a.status, a.sample, "
            f"a.rater_id, p.name AS rater, r.assignment_id AS rated, {columns}, r.note "
            "FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
            "LEFT JOIN ratings r ON r.assignment_id = a.id WHERE a.id = :assignment_id",
            {"assignment_id": assignment_id},
        )
    )
    if not rows:
        return None
    row = rows[0]
    scores = None if row["rated"] is None else {k: row[k] for k in SCORE_COLUMNS}
    keys = ("transaction_id", "turn_index", "order_key", "status", "sample", "rater_id", "rater")
    return {k: row[k] for k in keys}, scores, row["note"] or ""


def status_counts(project: Project, sample: str, rater: str) -> dict[str, int]:
    rows = project.db.execute(
        "SELECT a.status, count(*) FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
        "WHERE a.sample = :sample AND p.name = :rater GROUP BY a.status ORDER BY a.status",
        {"sample": sample, "rater": rater},
    ).fetchall()
    return {status: int(n) for status, n in rows}


def rater_status_counts(project: Project, rater: str) -> dict[str, dict[str, int]]:
    """Sample → status → count, for every sample in which ``rater`` has a queue."""
    rows = project.db.execute(
        "SELECT a.sample, a.status, count(*) FROM rating_assignments a "
        "JOIN people p ON p.id = a.rater_id WHERE p.name = :rater "
        "GROUP BY a.sample, a.status ORDER BY a.sample, a.status",
        {"rater": rater},
    ).fetchall()
    found: dict[str, dict[str, int]] = {}
    for sample, status, n in rows:
        found.setdefault(sample, {})[status] = int(n)
    return found


def first_pending(project: Project, sample: str, rater: str) -> int | None:
    """The rater's first pending assignment in their shuffled order."""
    row = project.db.execute(
        "SELECT a.id FROM rating_assignments a JOIN people p ON p.id = a.rater_id "
        "WHERE a.sample = :sample AND p.name = :rater AND a.status = 'pending' ORDER BY a.order_key LIMIT 1",
        {"sample": sample, "rater": rater},
    ).fetchone()
    return None if row is None else int(row[0])


def queue_place(project: Project, sample: str, rater_id: int, order_key: int) -> tuple[int, int]:
    """(queue size, how many come before ``order_key``) in one rater's queue of a sample."""
    row = project.db.execute(
        "SELECT count(*), sum(CASE WHEN order_key < :order_key THEN 1 ELSE 0 END) "
        "FROM rating_assignments WHERE sample = :sample AND rater_id = :rater_id",
        {"order_key": order_key, "sample": sample, "rater_id": rater_id},
    ).fetchone()
    return int(row[0]), int(row[1] or 0)


def item_images(project: Project, transaction_id: int) -> list[tuple[int, str, str, str]]:
    """(position, image id, caption, stored path) of a transaction's images."""
    rows = project.db.execute(
        "SELECT position, image_id, caption, i.path FROM transaction_images ti "
        "JOIN images i ON i.id = ti.image_id WHERE ti.transaction_id = :transaction_id ORDER BY position",
        {"transaction_id": transaction_id},
    ).fetchall()
    return [(int(r[0]), r[1], r[2], r[3]) for r in rows]


def turns_up_to(project: Project, transaction_id: int, turn_index: int) -> list[tuple[int, int, str]]:
    """(turn index, reference position, text) of the turns up to ``turn_index``."""
    rows = project.db.execute(
        "SELECT turn_index, reference_position, text FROM transaction_turns "
        "WHERE transaction_id = :transaction_id AND turn_index <= :turn_index ORDER BY turn_index",
        {"transaction_id": transaction_id, "turn_index": turn_index},
    ).fetchall()
    return [(int(r[0]), int(r[1]), r[2]) for r in rows]


def scores(project: Project, assignment_id: int) -> tuple[dict[str, int | None], str] | None:
    """The rating's scores by column and its note, or None when nothing was scored."""
    columns = ", ".join(SCORE_COLUMNS)
    row = project.db.execute(
        f"SELECT {columns}, note FROM ratings WHERE assignment_id = :assignment_id", {
            "assignment_id": assignment_id,
        }
    ).fetchone()
    if row is None:
        return None
    return dict(zip(SCORE_COLUMNS, row[:-1], strict=True)), row[-1]


def save_scores(
    project: Project, assignment_id: int, scores: Mapping[str, int | None], note: str, now: str
) -> None:
    """Write the whole rating (every column of ``SCORE_COLUMNS``) and its note (its answer
    is not read: on PostgreSQL it travels with the transaction's next statement)."""
    columns = ", ".join(SCORE_COLUMNS)
    marks = ", ".join(f":{k}" for k in SCORE_COLUMNS)
    updates = ", ".join(f"{k} = excluded.{k}" for k in SCORE_COLUMNS)
    project.db.defer(
        f"INSERT INTO ratings (assignment_id, {columns}, note, updated_at) "
        f"VALUES (:assignment_id, {marks}, :note, :now) ON CONFLICT (assignment_id) DO UPDATE "
        f"SET {updates}, note = excluded.note, updated_at = excluded.updated_at",
        {
            "assignment_id": assignment_id,
            **{k: scores.get(k) for k in SCORE_COLUMNS},
            "note": note,
            "now": now,
        },
    )


def set_status(project: Project, assignment_id: int, status: str) -> None:
    project.db.execute(
        "UPDATE rating_assignments SET status = :status WHERE id = :assignment_id", {
            "status": status,
            "assignment_id": assignment_id,
        }
    )


# -- samples ---------------------------------------------------------------------------


def accepted_turns(project: Project) -> list[tuple[str, str, int, int]]:
    """(dataset, category, turn index, transaction id) of accepted turns, in that order."""
    rows = project.db.execute(
        "SELECT t.dataset, t.category, u.turn_index, t.id FROM transaction_turns u "
        "JOIN transactions t ON t.id = u.transaction_id WHERE u.status = 'accepted' "
        "ORDER BY t.dataset, t.category, u.turn_index, t.id"
    ).fetchall()
    return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]


def sample_names(project: Project) -> list[str]:
    rows = project.db.execute(
        "SELECT DISTINCT sample FROM rating_assignments ORDER BY sample"
    ).fetchall()
    return [row[0] for row in rows]


def rater_names(project: Project) -> list[str]:
    """Everyone with a rating queue in any sample, in name order."""
    rows = project.db.execute(
        "SELECT DISTINCT p.name FROM people p JOIN rating_assignments a ON a.rater_id = p.id "
        "ORDER BY p.name"
    ).fetchall()
    return [row[0] for row in rows]


def sampled_items(project: Project, sample: str) -> set[Item]:
    rows = project.db.execute(
        "SELECT DISTINCT transaction_id, turn_index FROM rating_assignments WHERE sample = :sample",
        {"sample": sample},
    ).fetchall()
    return {(int(a), int(b)) for a, b in rows}


def items_of_rater(project: Project, rater_id: int) -> set[Item]:
    """Every item the rater was ever given, in any sample."""
    rows = project.db.execute(
        "SELECT transaction_id, turn_index FROM rating_assignments WHERE rater_id = :rater_id",
        {"rater_id": rater_id},
    ).fetchall()
    return {(int(a), int(b)) for a, b in rows}


def add_to_queue(project: Project, sample: str, rater_id: int, items: Sequence[Item]) -> None:
    """Append ``items`` (already in queue order) to the rater's queue of the sample."""
    row = project.db.execute(
        "SELECT coalesce(max(order_key), -1) FROM rating_assignments "
        "WHERE sample = :sample AND rater_id = :rater_id",
        {"sample": sample, "rater_id": rater_id},
    ).fetchone()
    start = int(row[0]) + 1
    project.db.conn.executemany(
        "INSERT INTO rating_assignments (sample, transaction_id, turn_index, rater_id, "
        "order_key, status) VALUES (:sample, :transaction_id, :turn_index, :rater_id, "
        ":order_key, 'pending')",
        [
            {"sample": sample, "transaction_id": tid, "turn_index": turn, "rater_id": rater_id,
             "order_key": start + n}
            for n, (tid, turn) in enumerate(items)
        ],
    )


def queue_size(project: Project, sample: str, rater_id: int) -> int:
    row = project.db.execute(
        "SELECT count(*) FROM rating_assignments WHERE sample = :sample AND rater_id = :rater_id",
        {"sample": sample, "rater_id": rater_id},
    ).fetchone()
    return int(row[0])


# -- reports ---------------------------------------------------------------------------


def finished(project: Project, sample: str | None = None) -> list[dict[str, Any]]:
    """Ratings marked done (of one sample, or all), by assignment: dataset,
    transaction_id, turn_index, rater_id and the score columns."""
    columns = ", ".join(f"r.{k}" for k in SCORE_COLUMNS)
    where = "a.status = 'done'" + (" AND a.sample = :sample" if sample else "")
    return list(
        project.db.query(
            f"SELECT t.dataset, a.transaction_id, a.turn_index, a.rater_id, {columns} "
            "FROM rating_assignments a JOIN ratings r ON r.assignment_id = a.id "
            f"JOIN transactions t ON t.id = a.transaction_id WHERE {where} ORDER BY a.id",
            {"sample": sample} if sample else {},
        )
    )
