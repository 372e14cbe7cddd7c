"""Typed records of the attribute layer; allowed values are checked on creation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

AttributeType = Literal["texture", "fabric", "shape", "part", "style", "color"]
ATTRIBUTE_TYPES: tuple[str, ...] = get_args(AttributeType)
Source = Literal["text", "model", "person"]
SOURCES: tuple[str, ...] = get_args(Source)
Status = Literal["suggested", "accepted", "rejected"]
STATUSES: tuple[str, ...] = get_args(Status)


def _check(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")


@dataclass(frozen=True)
class VocabularyEntry:
    """One attribute: its name, type and the other words that mean it.

    Plural forms are derived when matching (``studio.attributes.forms``); irregular ones
    ("leaves" for "leaf") go into ``synonyms``. ``id`` is None until stored.
    """

    name: str
    type: AttributeType
    synonyms: tuple[str, ...] = ()
    id: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("an attribute needs a non-empty name")
        _check(self.type, ATTRIBUTE_TYPES, "attribute type")
        if isinstance(self.synonyms, str) or not all(
            isinstance(s, str) and s.strip() for s in self.synonyms
        ):
            raise ValueError(f"synonyms of {self.name!r} must be non-empty strings")

    @property
    def terms(self) -> tuple[str, ...]:
        """The name followed by its synonyms: every spelling extraction looks for."""
        return (self.name, *self.synonyms)

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "type": self.type, "synonyms": list(self.synonyms)}


@dataclass(frozen=True)
class Label:
    """One row of ``image_attributes`` joined with its vocabulary entry."""

    image_id: str
    attribute: str
    type: AttributeType
    source: Source
    status: Status
    confidence: float | None = None
    model: str = ""
    attribute_id: int | None = None

    def __post_init__(self) -> None:
        _check(self.type, ATTRIBUTE_TYPES, "attribute type")
        _check(self.source, SOURCES, "label source")
        _check(self.status, STATUSES, "label status")

    def to_json(self) -> dict[str, object]:
        return {
            "image_id": self.image_id,
            "attribute": self.attribute,
            "type": self.type,
            "source": self.source,
            "model": self.model,
            "confidence": self.confidence,
            "status": self.status,
        }


@dataclass(frozen=True)
class AttributeState:
    """What review shows for one attribute of one image: every source's row folded into one.

    ``status`` is the reviewed decision when any row has one, else 'suggested'.
    ``evidence`` lists (source, model, confidence) of each row, for the tooltip.
    """

    attribute_id: int
    attribute: str
    type: AttributeType
    status: Status
    evidence: tuple[tuple[str, str, float | None], ...] = field(default=())

    def __post_init__(self) -> None:
        _check(self.type, ATTRIBUTE_TYPES, "attribute type")
        _check(self.status, STATUSES, "label status")

    @property
    def best_confidence(self) -> float | None:
        values = [c for _, _, c in self.evidence if c is not None]
        return max(values) if values else None
