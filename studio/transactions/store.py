"""Transactions in the project database: save (idempotently), load, list, edit a turn.

``UNIQUE(dataset, external_key)`` makes saving the same transaction twice a no-op, so
re-running an import or a build never duplicates anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from studio.errors import StudioError
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import transactions as transactions_repo
from studio.transactions.records import TURN_STATUSES, Transaction, Turn


def existing_keys(project: Project, dataset: str) -> set[str]:
    return transactions_repo.existing_keys(project, dataset)


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
        for transaction in transactions:
            if transactions_repo.find(project, transaction.dataset, transaction.external_key):
                present += 1
                continue
            new_ids.append(_insert(project, transaction))
        record["after"] = {**(detail or {}), "added": len(new_ids), "already_present": present}
    return new_ids, present


def _insert(project: Project, transaction: Transaction) -> int:
    category = transaction.category or transactions_repo.image_category(
        project, transaction.image_ids[0]
    )
    return transactions_repo.insert(
        project,
        dataset=transaction.dataset,
        external_key=transaction.external_key,
        category=category,
        origin=transaction.origin,
        images=[
            (image_id, transaction.caption(position))
            for position, image_id in enumerate(transaction.image_ids)
        ],
        turns=[(t.index, t.reference_position, t.text, t.status) for t in transaction.turns],
        layout=transaction.layout,
        image_refs=transaction.image_refs,
        now=utc_now(),
    )


def load_transaction(project: Project, transaction_id: int) -> Transaction:
    found = [_transaction(row) for row in transactions_repo.load(project, transaction_id)]
    if not found:
        raise StudioError(f"There is no transaction {transaction_id} in this project.")
    return found[0]


def iter_transactions(
    project: Project, dataset: str | None = None, origin: str | None = None
) -> Iterator[Transaction]:
    for row in transactions_repo.load(project, dataset=dataset, origin=origin):
        yield _transaction(row)


def _transaction(row: dict[str, Any]) -> Transaction:
    images = row["images"]
    captions = tuple(c for _, c in images) if any(c for _, c in images) else ()
    return Transaction(
        dataset=row["dataset"],
        external_key=row["external_key"],
        image_ids=tuple(i for i, _ in images),
        turns=tuple(
            Turn(index=t[0], reference_position=t[1], text=t[2], status=t[3])
            for t in row["turns"]
        ),
        captions=captions,
        category=row["category"],
        origin=row["origin"],
        id=row["id"],
        layout=row["layout"],
        image_refs=row["image_refs"],
    )


@dataclass(frozen=True)
class DatasetCount:
    transactions: int
    turns: int
    draft_turns: int


def dataset_counts(project: Project) -> dict[str, DatasetCount]:
    """Per dataset, in name order: transactions, turns, and turns still drafts."""
    return {
        dataset: DatasetCount(transactions=transactions, turns=turns, draft_turns=drafts)
        for dataset, transactions, turns, drafts in transactions_repo.dataset_counts(project)
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
    row = transactions_repo.turn(project, transaction_id, turn_index)
    if row is None:
        raise StudioError(f"Transaction {transaction_id} has no turn {turn_index}.")
    before = {"text": row[0], "status": row[2]}
    with project.change(actor, "edit turn", "transaction_turn",
                        f"{transaction_id}:{turn_index}", before) as record:
        transactions_repo.set_turn(project, transaction_id, turn_index, text, status)
        record["after"] = {"text": text, "status": status}
