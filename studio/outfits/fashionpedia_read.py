"""Reading and checking a Fashionpedia (COCO-style) file before anything is written.

The file holds ``images``, ``annotations``, ``categories`` and ``attributes``; an
annotation has ``image_id``, ``category_id``, ``attribute_ids``, ``segmentation``
(polygons, or an RLE mask ``{"counts", "size"}`` compressed or not), ``area``, ``bbox``,
``iscrowd`` and ``id``. Every entry is kept as written (``raw``), so an export gives back
each field, including ones this reader does not know. Every problem is collected with its
entry before the import decides anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.importers.json_format import file_format
from studio.importers.validation import (
    MAX_LISTED,
    ImportValidationError,
    Problem,
    Problems,
    load_json,
)
from studio.outfits.geometry import RleError, check_rle, polygon_bounds, rle_bounds
from studio.outfits.ontology import Ontology

LISTS = ("images", "annotations", "categories", "attributes")


class OutfitImportError(ImportValidationError):
    """Every problem of an outfit file; nothing was written (these imports are all or
    nothing: there is no ``--skip-invalid``)."""

    def __init__(self, dataset: str, problems: list[Problem]) -> None:
        super().__init__(dataset, problems)
        listed = "; ".join(str(p) for p in problems[:MAX_LISTED])
        more = f"; … and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        self.args = (f"{dataset} import refused, nothing was written ({count}): {listed}{more}",)


@dataclass
class FpAnnotation:
    raw: dict[str, Any]
    image_id: int
    category_id: int
    attribute_ids: list[int]
    polygon: list[list[float]] | None
    rle: dict[str, Any] | None
    box: list[float] | None
    bounds: tuple[float, float, float, float] | None
    index: int


@dataclass
class FashionpediaFile:
    path: Path
    header: dict[str, Any]
    keys: list[str]
    images: list[dict[str, Any]] = field(default_factory=list)
    annotations: list[FpAnnotation] = field(default_factory=list)
    categories: list[dict[str, Any]] = field(default_factory=list)
    attributes: list[dict[str, Any]] = field(default_factory=list)
    format: dict[str, Any] | None = None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_fashionpedia(path: Path, ontology: Ontology, problems: Problems) -> FashionpediaFile | None:
    """The parsed file, or None; every problem found goes into ``problems``."""
    data = load_json(path, problems)
    if data is None:
        return None
    if not isinstance(data, dict):
        problems.add(path, f"expected a JSON object with {', '.join(LISTS)}, "
                     f"found {type(data).__name__}")
        return None
    for name in ("images", "annotations", "categories"):
        if not isinstance(data.get(name), list):
            problems.add(path, f'"{name}" must be a list')
    if "attributes" in data and not isinstance(data["attributes"], list):
        problems.add(path, '"attributes" must be a list')
    if len(problems):
        return None
    header = {key: value for key, value in data.items() if key not in LISTS}
    parsed = FashionpediaFile(path, header, list(data), format=file_format(path))
    parsed.categories = _ontology_part(path, data["categories"], "categories", "category",
                                       ontology, problems)
    parsed.attributes = _ontology_part(path, data.get("attributes", []), "attributes",
                                       "attribute", ontology, problems)
    images = _images(path, data["images"], problems)
    parsed.images = list(images.values())
    category_ids = {c["id"] for c in parsed.categories}
    attribute_ids = {a["id"] for a in parsed.attributes}
    seen: dict[int, int] = {}
    for index, entry in enumerate(data["annotations"]):
        annotation = _annotation(path, index, entry, images, category_ids, attribute_ids,
                                 seen, problems)
        if annotation is not None:
            parsed.annotations.append(annotation)
    return parsed


def _ontology_part(path: Path, entries: list[Any], what: str, kind: str, ontology: Ontology,
                   problems: Problems) -> list[dict[str, Any]]:
    out = []
    seen: set[int] = set()
    for index, entry in enumerate(entries):
        where = f"{what}[{index}]"
        if not isinstance(entry, dict) or not _is_int(entry.get("id")):
            problems.add(path, "needs an integer id", index, where)
            continue
        if not isinstance(entry.get("name"), str) or not entry["name"].strip():
            problems.add(path, "needs a name", index, f"{where} id {entry['id']}")
            continue
        if entry["id"] in seen:
            problems.add(path, f"duplicated {kind} id {entry['id']}", index, where)
            continue
        seen.add(entry["id"])
        known = ontology.external(kind, entry["id"])
        if known is not None and known.name != entry["name"]:
            problems.add(
                path,
                f"{kind} id {entry['id']} is {entry['name']!r} here but {known.name!r} in the "
                "project's ontology",
                index, where,
            )
            continue
        out.append(entry)
    return out


def _images(path: Path, entries: list[Any], problems: Problems) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        where = f"images[{index}]"
        if not isinstance(entry, dict) or not _is_int(entry.get("id")):
            problems.add(path, "needs an integer id", index, where)
            continue
        if not isinstance(entry.get("file_name"), str) or not entry["file_name"].strip():
            problems.add(path, "needs a file_name", index, f"{where} id {entry['id']}")
            continue
        for size in ("width", "height"):
            if not _is_int(entry.get(size)) or entry[size] <= 0:
                problems.add(path, f"needs a positive integer {size}", index,
                             f"{where} id {entry['id']}")
        if entry["id"] in out:
            problems.add(path, f"duplicated image id {entry['id']}", index, where)
            continue
        out[entry["id"]] = entry
    return out


def _annotation(
    path: Path, index: int, entry: Any, images: dict[int, dict[str, Any]],
    category_ids: set[int], attribute_ids: set[int], seen: dict[int, int], problems: Problems,
) -> FpAnnotation | None:
    where = f"annotations[{index}]"
    if not isinstance(entry, dict) or not _is_int(entry.get("id")):
        problems.add(path, "needs an integer id", index, where)
        return None
    where = f"annotation id {entry['id']}"
    before = len(problems)
    if entry["id"] in seen:
        problems.add(path, f"duplicated annotation id {entry['id']} (first at entry "
                     f"[{seen[entry['id']]}])", index, where)
    else:
        seen[entry["id"]] = index
    image = images.get(entry.get("image_id"))  # type: ignore[arg-type]
    if image is None:
        problems.add(path, f"annotation for unknown image {entry.get('image_id')!r}", index, where)
    if entry.get("category_id") not in category_ids:
        problems.add(path, f"unknown category id {entry.get('category_id')!r}", index, where)
    attributes = entry.get("attribute_ids", [])
    if not isinstance(attributes, list) or not all(_is_int(a) for a in attributes):
        problems.add(path, "attribute_ids must be a list of integers", index, where)
        attributes = []
    for attribute in attributes:
        if attribute not in attribute_ids:
            problems.add(path, f"unknown attribute id {attribute}", index, where)
    width = image.get("width") if image else None
    height = image.get("height") if image else None
    polygon, rle, bounds = _segmentation(path, index, where, entry.get("segmentation", []),
                                         width, height, problems)
    box = entry.get("bbox")
    if box is not None and (
        not isinstance(box, list) or len(box) != 4 or not all(_is_number(v) for v in box)
        or box[2] < 0 or box[3] < 0
    ):
        problems.add(path, "bbox must be [x, y, width, height]", index, where)
        box = None
    if "area" in entry and not _is_number(entry["area"]):
        problems.add(path, "area must be a number", index, where)
    if "iscrowd" in entry and entry["iscrowd"] not in (0, 1):
        problems.add(path, "iscrowd must be 0 or 1", index, where)
    if len(problems) > before:
        return None
    return FpAnnotation(
        raw=entry, image_id=entry["image_id"], category_id=entry["category_id"],
        attribute_ids=list(attributes), polygon=polygon, rle=rle,
        box=list(box) if box is not None else None,
        bounds=(box[0], box[1], box[2], box[3]) if box is not None else bounds,
        index=index,
    )


def _segmentation(path: Path, index: int, where: str, value: Any, width: int | None,
                  height: int | None, problems: Problems
                  ) -> tuple[list[list[float]] | None, dict[str, Any] | None, Any]:
    if isinstance(value, dict):
        try:
            counts = check_rle(value, width, height)
        except RleError as error:
            problems.add(path, f"malformed RLE segmentation: {error}", index, where)
            return None, None, None
        return None, value, rle_bounds(counts, value["size"][0])
    if not isinstance(value, list):
        problems.add(path, "segmentation must be a list of polygons or an RLE object",
                     index, where)
        return None, None, None
    rings = []
    for number, ring in enumerate(value):
        if not isinstance(ring, list) or not all(_is_number(v) for v in ring):
            problems.add(path, f"polygon {number} is not a list of numbers", index, where)
            continue
        if len(ring) % 2:
            problems.add(path, f"polygon {number} has an odd number of coordinates "
                         f"({len(ring)})", index, where)
            continue
        if len(ring) < 6:
            problems.add(path, f"polygon {number} has fewer than three points", index, where)
            continue
        if width is not None and height is not None:
            outside = [
                (ring[i], ring[i + 1]) for i in range(0, len(ring), 2)
                if not (0 <= ring[i] <= width and 0 <= ring[i + 1] <= height)
            ]
            if outside:
                problems.add(
                    path,
                    f"polygon {number} has {len(outside)} points outside the "
                    f"{width}x{height} picture (first {list(outside[0])})",
                    index, where,
                )
                continue
        rings.append(ring)
    if not value:
        return None, None, None
    return rings, None, polygon_bounds(rings)


def header_text(parsed: FashionpediaFile) -> str:
    return json.dumps({"keys": parsed.keys, "fields": parsed.header}, ensure_ascii=False)


def read_ontology_file(path: Path, ontology: Ontology, problems: Problems
                       ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The categories and attributes of an ontology file (problems recorded)."""
    data = load_json(path, problems)
    if not isinstance(data, dict) or not isinstance(data.get("categories"), list):
        if data is not None:
            problems.add(path, 'expected an object with "categories" and "attributes" lists')
        return [], []
    attributes = data.get("attributes", [])
    if not isinstance(attributes, list):
        problems.add(path, '"attributes" must be a list')
        return [], []
    return (
        _ontology_part(path, data["categories"], "categories", "category", ontology, problems),
        _ontology_part(path, attributes, "attributes", "attribute", ontology, problems),
    )
