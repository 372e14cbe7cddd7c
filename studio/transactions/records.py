"""A multi-turn transaction as small typed records, checked on creation (labelme's habit).

Positions: image 0 is the reference, image ``k`` the target of turn ``k`` (turns count
from 1, as FashionMT's ``tar1``/``mod1`` do). A turn's ``reference_position`` is the image
it modifies: the previous target for an ordinary turn, an earlier one after a rollback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

Origin = Literal["imported", "session", "simulated", "built"]
ORIGINS: tuple[str, ...] = get_args(Origin)
TurnStatus = Literal["draft", "accepted"]
TURN_STATUSES: tuple[str, ...] = get_args(TurnStatus)


@dataclass(frozen=True)
class Turn:
    """One modification: ``reference_position`` → text → the image at ``index``."""

    index: int
    text: str
    reference_position: int
    status: TurnStatus = "accepted"

    def __post_init__(self) -> None:
        if self.index < 1:
            raise ValueError(f"turn indices start at 1, got {self.index}")
        if not 0 <= self.reference_position < self.index:
            raise ValueError(
                f"turn {self.index}: reference position {self.reference_position} must be an "
                "earlier image"
            )
        if self.status not in TURN_STATUSES:
            raise ValueError(f"turn status {self.status!r} is not one of {TURN_STATUSES}")

    @property
    def target_position(self) -> int:
        return self.index


@dataclass(frozen=True)
class Transaction:
    """Ordered images (reference, target 1, …, target N), N turns, optional image captions."""

    dataset: str
    external_key: str
    image_ids: tuple[str, ...]
    turns: tuple[Turn, ...]
    captions: tuple[str, ...] = ()
    category: str = ""
    origin: Origin = "imported"
    id: int | None = field(default=None, compare=False)
    # As the source file wrote it: the entry's key order and its image references (paths,
    # where the file gives paths), so an export writes the entry back unchanged.
    layout: tuple[str, ...] = field(default=(), compare=False)
    image_refs: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.dataset.strip():
            raise ValueError("a transaction needs a dataset name")
        if not self.external_key:
            raise ValueError("a transaction needs an external key")
        if len(self.turns) < 1 or len(self.image_ids) != len(self.turns) + 1:
            raise ValueError(
                f"{len(self.turns)} turns need {len(self.turns) + 1} images, "
                f"got {len(self.image_ids)}"
            )
        if [t.index for t in self.turns] != list(range(1, len(self.turns) + 1)):
            raise ValueError("turns must be numbered 1, 2, … in order")
        if self.captions and len(self.captions) != len(self.image_ids):
            raise ValueError(
                f"captions are per image: expected {len(self.image_ids)}, got {len(self.captions)}"
            )
        if self.origin not in ORIGINS:
            raise ValueError(f"origin {self.origin!r} is not one of {ORIGINS}")

    @property
    def n_turns(self) -> int:
        return len(self.turns)

    def caption(self, position: int) -> str:
        return self.captions[position] if self.captions else ""


def sequential_turns(texts: list[str], status: TurnStatus = "accepted") -> tuple[Turn, ...]:
    """Turns where each modifies the previous target, as in FashionMT files."""
    return tuple(
        Turn(index=i, text=text, reference_position=i - 1, status=status)
        for i, text in enumerate(texts, start=1)
    )
