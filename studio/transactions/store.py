"""Transactions in the project database: save (idempotently), load, list, edit a turn.

``UNIQUE(dataset, external_key)`` makes saving the same transaction twice a no-op, so
re-running an import or a build never duplicates anything.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from studio.errors import StudioError
from studio.store import Project
from studio.store.database import inserted_id, utc_now
from studio.transactions.records import TURN_STATUSES, Transaction, Turn


def existing_keys(project: Project, dataset: str) -> set[str]:
    rows = project.db.execute(
        "SELECT external_key FROM transactions WHERE dataset = ?", [dataset]
    ).fetchall()
    return {row[0] for row in rows}


def save_transactions(
    project: Project,
    transactions: Sequence[Transaction],
    actor: str,
    action: str = "add transactions",
    detail: dict[str, object] | None = None,
) -> tuple[list[int], int]:
    """Insert the transactions not yet present, in one audited change.

    Returns (ids of the new rows, how many were already present). A transaction without
    a category takes its reference image's.
    """
    new_ids: list[int] = []
    present = 0
    with project.change(actor, action, "transactions") as record:
        db = project.db
        for transaction in transactions:
            row = db.execute(
                "SELECT id FROM transactions WHERE dataset = ? AND external_key = ?",
                [transaction.dataset, transaction.external_key],
            ).fetchone()
            if row is not None:
                present += 1
                continue
            new_ids.append(_insert(project, transaction))
        record["after"] = {**(detail or {}), "added": len(new_ids), "already_present": present}
    return new_ids, present


def _insert(project: Project, transaction: Transaction) -> int:
    db = project.db
    category = transaction.category
    if not category:
        found = db.execute(
            "SELECT category FROM images WHERE id = ?", [transaction.image_ids[0]]
        ).fetchone()
        category = found[0] if found else ""
    cursor = db.execute(
        "INSERT INTO transactions (dataset, external_key, category, origin, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [transaction.dataset, transaction.external_key, category, transaction.origin, utc_now()],
    )
    tid = inserted_id(cursor)
    db.conn.executemany(
        "INSERT INTO transaction_images (transaction_id, position, image_id, caption) "
        "VALUES (?, ?, ?, ?)",
        [
            (tid, position, image_id, transaction.caption(position))
            for position, image_id in enumerate(transaction.image_ids)
        ],
    )
    db.conn.executemany(
        "INSERT INTO transaction_turns (transaction_id, turn_index, reference_position, text, "
        "status) VALUES (?, ?, ?, ?, ?)",
        [(tid, t.index, t.reference_position, t.text, t.status) for t in transaction.turns],
    )
    if transaction.layout or transaction.image_refs:
        db.execute(
            "INSERT INTO transaction_layouts (transaction_id, keys, image_refs) VALUES (?, ?, ?)",
            [tid, json.dumps(list(transaction.layout)), json.dumps(list(transaction.image_refs))],
        )
    return tid


def load_transaction(project: Project, transaction_id: int) -> Transaction:
    found = list(_load(project, "WHERE id = ?", [transaction_id]))
    if not found:
        raise StudioError(f"There is no transaction {transaction_id} in this project.")
    return found[0]


def iter_transactions(
    project: Project, dataset: str | None = None, origin: str | None = None
) -> Iterator[Transaction]:
    clauses, params = [], []
    if dataset is not None:
        clauses.append("dataset = ?")
        params.append(dataset)
    if origin is not None:
        clauses.append("origin = ?")
        params.append(origin)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    yield from _load(project, where, params)


def _load(project: Project, where: str, params: Iterable[object]) -> Iterator[Transaction]:
    db = project.db
    heads = db.execute(
        f"SELECT id, dataset, external_key, category, origin FROM transactions {where} "
        "ORDER BY id",
        list(params),
    ).fetchall()
    for tid, dataset, key, category, origin in heads:
        images = db.execute(
            "SELECT image_id, caption FROM transaction_images WHERE transaction_id = ? "
            "ORDER BY position",
            [tid],
        ).fetchall()
        turns = db.execute(
            "SELECT turn_index, reference_position, text, status FROM transaction_turns "
            "WHERE transaction_id = ? ORDER BY turn_index",
            [tid],
        ).fetchall()
        captions = tuple(c for _, c in images) if any(c for _, c in images) else ()
        layout = db.execute(
            "SELECT keys, image_refs FROM transaction_layouts WHERE transaction_id = ?", [tid]
        ).fetchone()
        yield Transaction(
            dataset=dataset,
            external_key=key,
            image_ids=tuple(i for i, _ in images),
            turns=tuple(Turn(index=t[0], reference_position=t[1], text=t[2], status=t[3])
                        for t in turns),
            captions=captions,
            category=category,
            origin=origin,
            id=tid,
            layout=tuple(json.loads(layout[0])) if layout else (),
            image_refs=tuple(json.loads(layout[1])) if layout else (),
        )


@dataclass(frozen=True)
class DatasetCount:
    transactions: int
    turns: int
    draft_turns: int


def dataset_counts(project: Project) -> dict[str, DatasetCount]:
    """Per dataset, in name order: transactions, turns, and turns still drafts."""
    rows = project.db.query(
        "SELECT t.dataset, count(DISTINCT t.id) AS transactions, count(u.turn_index) AS turns, "
        "coalesce(sum(u.status = 'draft'), 0) AS draft_turns FROM transactions t "
        "LEFT JOIN transaction_turns u ON u.transaction_id = t.id GROUP BY 1 ORDER BY 1"
    )
    return {
        row["dataset"]: DatasetCount(
            transactions=int(row["transactions"]), turns=int(row["turns"]),
            draft_turns=int(row["draft_turns"]),
        )
        for row in rows
    }


def edit_turn(
    project: Project,
    transaction_id: int,
    turn_index: int,
    text: str,
    actor: str,
    status: str = "accepted",
) -> None:
    """An annotator's edit or acceptance of a (drafted) turn: one audited change."""
    text = text.strip()
    if not text:
        raise StudioError("A turn needs a modification text.")
    if status not in TURN_STATUSES:
        raise StudioError(f"Unknown turn status {status!r}; choose one of {TURN_STATUSES}.")
    row = project.db.execute(
        "SELECT text, status FROM transaction_turns WHERE transaction_id = ? AND turn_index = ?",
        [transaction_id, turn_index],
    ).fetchone()
    if row is None:
        raise StudioError(f"Transaction {transaction_id} has no turn {turn_index}.")
    before = {"text": row[0], "status": row[1]}
    with project.change(actor, "edit turn", "transaction_turn",
                        f"{transaction_id}:{turn_index}", before) as record:
        project.db.execute(
            "UPDATE transaction_turns SET text = ?, status = ? "
            "WHERE transaction_id = ? AND turn_index = ?",
            [text, status, transaction_id, turn_index],
        )
        record["after"] = {"text": text, "status": status}
