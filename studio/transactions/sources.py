"""Transactions from recorded retrieval sessions and simulated runs, as plain turn lists.

Later features (the Retrieval pane, the user simulators) hand over their turns as
``(reference_id, text, target_id)``; this turns them into a transaction whose reference
positions follow the references actually used, so a rollback stays a rollback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from studio.transactions.records import Origin, Transaction, Turn, TurnStatus


class PlainTurn(NamedTuple):
    reference_id: str
    text: str
    target_id: str


def transaction_from_turns(
    dataset: str,
    external_key: str,
    turns: Sequence[PlainTurn | tuple[str, str, str]],
    origin: Origin,
    category: str = "",
    status: TurnStatus = "accepted",
) -> Transaction:
    """Chain turns into one transaction; each reference must be an image seen earlier."""
    if not turns:
        raise ValueError("a transaction needs at least one turn")
    plain = [PlainTurn(*turn) for turn in turns]
    images: list[str] = [plain[0].reference_id]
    built: list[Turn] = []
    for index, turn in enumerate(plain, start=1):
        earlier = [p for p, image in enumerate(images) if image == turn.reference_id]
        if not earlier:
            raise ValueError(
                f"turn {index}: reference {turn.reference_id!r} is none of the earlier images"
            )
        built.append(Turn(index=index, text=turn.text.strip(), reference_position=earlier[-1],
                          status=status))
        images.append(turn.target_id)
    return Transaction(dataset=dataset, external_key=external_key, image_ids=tuple(images),
                       turns=tuple(built), category=category, origin=origin)


def from_session_turns(
    dataset: str, external_key: str, turns: Sequence[PlainTurn | tuple[str, str, str]],
    category: str = "",
) -> Transaction:
    """A transaction recorded from a person's retrieval session."""
    return transaction_from_turns(dataset, external_key, turns, "session", category)


def from_simulated_turns(
    dataset: str, external_key: str, turns: Sequence[PlainTurn | tuple[str, str, str]],
    category: str = "",
) -> Transaction:
    """A transaction produced by a simulated user."""
    return transaction_from_turns(dataset, external_key, turns, "simulated", category)
