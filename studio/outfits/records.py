"""Typed records of the outfit layer; allowed values are checked on creation."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

OntologyKind = Literal["category", "attribute", "outfit"]
# The image category of an outfit picture (a person wearing several garments has no one
# product category): the Dashboard and ``stats`` count such pictures under it.
PICTURE_CATEGORY = "outfit"
ONTOLOGY_KINDS: tuple[str, ...] = get_args(OntologyKind)
Role = Literal["garment", "part"]
ROLES: tuple[str, ...] = get_args(Role)
Source = Literal["imported", "person", "model"]
SOURCES: tuple[str, ...] = get_args(Source)
Status = Literal["suggested", "accepted", "rejected"]
STATUSES: tuple[str, ...] = get_args(Status)
OutfitField = Literal["style", "occasion", "season", "scene"]
OUTFIT_FIELDS: tuple[str, ...] = get_args(OutfitField)
# FashionX's five garment types, and the Fashionpedia supercategories that are parts.
GarmentType = Literal["one-piece", "top", "bottom", "footwear", "accessory"]
GARMENT_TYPES: tuple[str, ...] = get_args(GarmentType)
PART_SUPERCATEGORIES = ("garment parts", "closures", "decorations")
_TYPE_OF_SUPERCATEGORY = {
    "wholebody": "one-piece",
    "upperbody": "top",
    "lowerbody": "bottom",
    "legs and feet": "footwear",
}
_TYPE_OF_NAME = {"coat": "top", "cape": "top"}  # Fashionpedia files these under wholebody

Box = tuple[float, float, float, float]  # x, y, width, height in image pixels
Polygon = tuple[tuple[float, ...], ...]  # rings of x0, y0, x1, y1, ... (COCO's layout)


def _check(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")


@dataclass(frozen=True)
class OntologyEntry:
    """A category, an attribute or an outfit value (``supercategory`` names its field)."""

    id: int
    kind: OntologyKind
    name: str
    supercategory: str = ""
    level: int | None = None
    taxonomy_id: str = ""
    description: str = ""
    external_id: int | None = None
    origin: str = "studio"

    def __post_init__(self) -> None:
        _check(self.kind, ONTOLOGY_KINDS, "ontology kind")
        if not self.name.strip():
            raise ValueError("an ontology entry needs a name")

    @property
    def is_part(self) -> bool:
        return self.kind == "category" and self.supercategory in PART_SUPERCATEGORIES

    @property
    def garment_type(self) -> str:
        """FashionX's type of a garment category (accessory when nothing more specific)."""
        return _TYPE_OF_NAME.get(
            self.name, _TYPE_OF_SUPERCATEGORY.get(self.supercategory, "accessory")
        )

    @property
    def label(self) -> str:
        return f"{self.name} ({self.supercategory})" if self.supercategory else self.name


@dataclass(frozen=True)
class Label:
    """One attribute of a region, or one outfit value of a picture, from one source."""

    id: int
    owner: int | str  # region id, or image id for outfit values
    value_id: int
    source: Source
    status: Status
    confidence: float | None = None
    model: str = ""
    author: str = ""
    reviewer: str = ""
    position: int = 0

    def __post_init__(self) -> None:
        _check(self.source, SOURCES, "label source")
        _check(self.status, STATUSES, "label status")


@dataclass(frozen=True)
class Region:
    """A garment or a part: where it is, what it is, who said so."""

    id: int
    image_id: str
    role: Role
    category_id: int
    garment_id: int | None = None
    box: Box | None = None
    polygon: Polygon | None = None
    rle: dict[str, Any] | None = None
    source: Source = "person"
    status: Status = "accepted"
    confidence: float | None = None
    model: str = ""
    author: str = ""
    reviewer: str = ""
    external_id: int | None = None
    position: int = 0
    uid: str = ""

    def __post_init__(self) -> None:
        _check(self.role, ROLES, "region role")
        _check(self.source, SOURCES, "region source")
        _check(self.status, STATUSES, "region status")
        if self.box is not None and (len(self.box) != 4 or self.box[2] < 0 or self.box[3] < 0):
            raise ValueError(f"region {self.id}: a box is [x, y, width, height], not {self.box}")
        for ring in self.polygon or ():
            if len(ring) % 2:
                raise ValueError(f"region {self.id}: a polygon ring has an odd coordinate count")

    def bounds(self) -> Box | None:
        """The box, else the polygon's bounding box, else None (an RLE's is computed by
        ``geometry.rle_box``)."""
        if self.box is not None:
            return self.box
        points = [v for ring in self.polygon or () for v in ring]
        if not points:
            return None
        xs, ys = points[0::2], points[1::2]
        return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


@dataclass(frozen=True)
class Picture:
    image_id: str
    general: str = ""
    concise: str = ""
    description_source: Source = "person"
    dataset: str = ""
    external_id: int | None = None
    position: int = 0


@dataclass
class Outfit:
    """Everything annotated on one picture, as the views and exports read it."""

    picture: Picture
    regions: list[Region] = field(default_factory=list)
    region_labels: dict[int, list[Label]] = field(default_factory=dict)
    outfit_labels: list[Label] = field(default_factory=list)

    def garments(self) -> list[Region]:
        return [r for r in self.regions if r.role == "garment"]

    def parts_of(self, garment_id: int) -> list[Region]:
        return [r for r in self.regions if r.role == "part" and r.garment_id == garment_id]


def effective(labels: list[Label]) -> list[Label]:
    """The labels that hold: accepted ones, one per value, in their stored order.

    A value someone rejected does not hold even where another source still accepts it
    (a person's decision wins over an import or a model)."""
    rejected = {label.value_id for label in labels if label.status == "rejected"}
    seen: set[int] = set()
    out = []
    for label in sorted(labels, key=lambda item: (item.position, item.id)):
        if label.status == "accepted" and label.value_id not in rejected | seen:
            seen.add(label.value_id)
            out.append(label)
    return out


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)
