"""Transactions: multi-turn records (images, turns, the file layout they came in).

``UNIQUE(dataset, external_key)`` makes saving the same transaction twice a no-op. Rows
come back as tuples and dicts; ``studio.transactions`` builds its records. Writes run in
the caller's ``project.change``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from studio.store import binds
from studio.store.project import Project


def existing_keys(project: Project, dataset: str) -> set[str]:
    rows = project.db.execute(
        "SELECT external_key FROM transactions WHERE dataset = :dataset", {"dataset": dataset}
    ).fetchall()
    return {row[0] for row in rows}


def find(project: Project, dataset: str, external_key: str) -> int | None:
    """The id of the dataset's transaction with this key, or None."""
    row = project.db.execute(
        "SELECT id FROM transactions WHERE dataset = :dataset AND external_key = :external_key",
        {"dataset": dataset, "external_key": external_key},
    ).fetchone()
    return None if row is None else int(row[0])


def image_category(project: Project, image_id: str) -> str:
    row = project.db.execute("SELECT category FROM images WHERE id = :image_id", {
        "image_id": image_id,
    }).fetchone()
    return (row[0] or "") if row else ""


def insert(
    project: Project,
    *,
    dataset: str,
    external_key: str,
    category: str,
    origin: str,
    images: Sequence[tuple[str, str]],
    turns: Sequence[tuple[int, int, str, str]],
    layout: Sequence[str] = (),
    image_refs: Sequence[str] = (),
    now: str,
) -> int:
    """Insert one transaction: its ``images`` (image id, caption) in order, its ``turns``
    (index, reference position, text, status) and the file layout; returns its id."""
    db = project.db
    tid = int(
        db.execute(
            "INSERT INTO transactions (dataset, external_key, category, origin, created_at) "
            "VALUES (:dataset, :external_key, :category, :origin, :now) RETURNING id",
            {
                "dataset": dataset,
                "external_key": external_key,
                "category": category,
                "origin": origin,
                "now": now,
            },
        ).fetchone()[0]
    )
    db.conn.executemany(
        "INSERT INTO transaction_images (transaction_id, position, image_id, caption) "
        "VALUES (:tid, :position, :image_id, :caption)",
        [
            {"tid": tid, "position": position, "image_id": image_id, "caption": caption}
            for position, (image_id, caption) in enumerate(images)
        ],
    )
    db.conn.executemany(
        "INSERT INTO transaction_turns (transaction_id, turn_index, reference_position, text, "
        "status) VALUES (:tid, :turn_index, :reference_position, :text, :status)",
        [
            {"tid": tid, **binds.row(("turn_index", "reference_position", "text", "status"), turn)}
            for turn in turns
        ],
    )
    if layout or image_refs:
        db.execute(
            "INSERT INTO transaction_layouts (transaction_id, keys, image_refs) VALUES (:tid, :keys, :image_refs)",
            {
                "tid": tid,
                "keys": json.dumps(list(layout)),
                "image_refs": json.dumps(list(image_refs)),
            },
        )
    return tid


def load(
    project: Project,
    transaction_id: int | None = None,
    dataset: str | None = None,
    origin: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Transactions in id order (one, or those of a dataset and origin), each as a dict:
    id, dataset, external_key, category, origin, images [(image id, caption)], turns
    [(index, reference position, text, status)], layout, image_refs."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    for column, value in (("id", transaction_id), ("dataset", dataset), ("origin", origin)):
        if value is not None:
            clauses.append(f"{column} = :{column}")
            params[column] = value
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    db = project.db
    heads = db.execute(
        f"SELECT id, dataset, external_key, category, origin FROM transactions {where} "
        "ORDER BY id",
        params,
    ).fetchall()
    for tid, set_name, key, category, source in heads:
        layout = db.execute(
            "SELECT keys, image_refs FROM transaction_layouts WHERE transaction_id = :tid", {
                "tid": tid,
            }
        ).fetchone()
        yield {
            "id": tid,
            "dataset": set_name,
            "external_key": key,
            "category": category,
            "origin": source,
            "images": [tuple(row) for row in _images(project, tid)],
            "turns": [tuple(row) for row in _turns(project, tid)],
            "layout": tuple(json.loads(layout[0])) if layout else (),
            "image_refs": tuple(json.loads(layout[1])) if layout else (),
        }


def _images(project: Project, tid: int) -> list[Any]:
    return project.db.execute(
        "SELECT image_id, caption FROM transaction_images WHERE transaction_id = :tid "
        "ORDER BY position",
        {"tid": tid},
    ).fetchall()


def _turns(project: Project, tid: int) -> list[Any]:
    return project.db.execute(
        "SELECT turn_index, reference_position, text, status FROM transaction_turns "
        "WHERE transaction_id = :tid ORDER BY turn_index",
        {"tid": tid},
    ).fetchall()


def image_ids(project: Project, transaction_id: int) -> tuple[str, ...]:
    """The transaction's images in position order."""
    return tuple(row[0] for row in _images(project, transaction_id))


def turn(project: Project, transaction_id: int, turn_index: int) -> tuple[str, int, str] | None:
    """(text, reference position, status) of one turn, or None."""
    row = project.db.execute(
        "SELECT text, reference_position, status FROM transaction_turns "
        "WHERE transaction_id = :transaction_id AND turn_index = :turn_index",
        {"transaction_id": transaction_id, "turn_index": turn_index},
    ).fetchone()
    return None if row is None else (row[0], int(row[1]), row[2])


def set_turn(
    project: Project, transaction_id: int, turn_index: int, text: str, status: str
) -> None:
    project.db.execute(
        "UPDATE transaction_turns SET text = :text, status = :status "
        "WHERE transaction_id = :transaction_id AND turn_index = :turn_index",
        {
            "text": text,
            "status": status,
            "transaction_id": transaction_id,
            "turn_index": turn_index,
        },
    )


def all_images(project: Project) -> dict[tuple[int, int], str]:
    """(transaction id, position) -> image id, over every transaction."""
    rows = project.db.execute(
        "SELECT transaction_id, position, image_id FROM transaction_images "
        "ORDER BY transaction_id, position"
    )
    return {(int(t), int(p)): str(i) for t, p, i in rows}


def accepted_turns(project: Project) -> list[tuple[int, int, int, str]]:
    """(transaction id, turn index, reference position, text) of accepted turns, in order."""
    rows = project.db.execute(
        "SELECT transaction_id, turn_index, reference_position, text FROM transaction_turns "
        "WHERE status = 'accepted' ORDER BY transaction_id, turn_index"
    ).fetchall()
    return [(int(r[0]), int(r[1]), int(r[2]), r[3]) for r in rows]


def dataset_counts(project: Project) -> list[tuple[str, int, int, int]]:
    """(dataset, transactions, turns, draft turns) per dataset, in name order."""
    rows = project.db.execute(
        "SELECT t.dataset, count(DISTINCT t.id), count(u.turn_index), "
        "coalesce(sum(CASE WHEN u.status = 'draft' THEN 1 ELSE 0 END), 0) FROM transactions t "
        "LEFT JOIN transaction_turns u ON u.transaction_id = t.id "
        "GROUP BY t.dataset ORDER BY t.dataset"
    ).fetchall()
    return [(row[0], int(row[1]), int(row[2]), int(row[3])) for row in rows]


# -- imports -----------------------------------------------------------------------------


def image_id_at(project: Project, path: str) -> str | None:
    """The id of the image stored at ``path`` (relative to the image root), or None."""
    row = project.db.execute("SELECT id FROM images WHERE path = :path", {"path": path}).fetchone()
    return row[0] if row else None


def record_file_format(project: Project, dataset: str, style: Any) -> None:
    """Remember how the file a dataset was imported from was written (to export it alike)."""
    project.db.execute(
        "INSERT INTO source_formats (source, file, format) VALUES ('transactions', :dataset, :format) "
        "ON CONFLICT (source, file) DO UPDATE SET format = excluded.format",
        {"dataset": dataset, "format": json.dumps(style)},
    )


def file_format(project: Project, dataset: str) -> Any:
    """The recorded layout of the file ``dataset`` was imported from, or None."""
    row = project.db.execute(
        "SELECT format FROM source_formats WHERE source = 'transactions' AND file = :dataset",
        {"dataset": dataset},
    ).fetchone()
    return json.loads(row[0]) if row else None

