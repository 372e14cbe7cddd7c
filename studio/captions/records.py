"""Caption records and the per-project caption policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

CaptionStatus = Literal["draft", "submitted", "accepted", "rejected"]
CAPTION_STATUSES: tuple[str, ...] = get_args(CaptionStatus)
# A caption that counts towards a pair's quota: written and not turned down.
LIVE_STATUSES = ("submitted", "accepted")
PROMPT = "Unlike the provided image, the one I want"
# The longest caption accepted (typed or imported). Fashion IQ's longest is under 200
# characters; 2,000 leaves room for multi-turn texts and refuses pasted documents.
MAX_CAPTION_CHARS = 2000


@dataclass(frozen=True)
class Caption:
    id: int
    pair_id: int
    position: int
    text: str
    author: str | None
    status: CaptionStatus
    flagged: bool = False
    reject_reason: str | None = None
    reviewer: str | None = None
    created_at: str = ""
    updated_at: str = ""
    reviewed_at: str | None = None

    def __post_init__(self) -> None:
        if self.status not in CAPTION_STATUSES:
            raise ValueError(
                f"caption status {self.status!r} is not one of {', '.join(CAPTION_STATUSES)}"
            )

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES

    def audit_state(self) -> dict[str, Any]:
        """What the audit log records before and after a change."""
        return {
            "text": self.text,
            "status": self.status,
            "reject_reason": self.reject_reason,
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class CaptionPolicy:
    """How many captions a pair needs, and whether each must come from another person.

    Fashion IQ collected two captions per pair from two different annotators; that is
    the default. Stored in the project's meta table so every annotator shares it.
    """

    per_pair: int = 2
    distinct_authors: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.per_pair <= 10:
            raise ValueError("a pair needs between 1 and 10 captions")
