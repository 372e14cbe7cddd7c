"""FashionX-style JSON (``docs/fashionx.schema.json``) and its self-checks.

OmniFashion's FashionX pipeline checks its own output: garments counted = garments
listed, no duplicated category, values from the ontology, strict JSON. ``check_pictures``
does those checks plus the schema's shape, naming each problem by picture and garment.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from studio.importers.validation import Problems
from studio.outfits.geometry import RleError, check_rle
from studio.outfits.ontology import Ontology
from studio.outfits.records import GARMENT_TYPES, OUTFIT_FIELDS, PART_SUPERCATEGORIES

PICTURE_KEYS = {"image", "descriptions", "garment_count", "garments", "unattached_parts",
                "overall"}
REQUIRED = ("image", "descriptions", "garment_count", "garments", "overall")
GARMENT_KEYS = {"id", "category", "type", "box", "polygon", "mask", "attributes", "parts"}
PART_KEYS = {"id", "category", "box", "polygon", "mask", "attributes"}


class StrictJsonError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    if duplicated:
        raise StrictJsonError(f"duplicated key {duplicated[0]!r} in one object")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not JSON")


def load_strict(path: Path, problems: Problems) -> Any:
    """The file parsed as strict JSON (or None after recording why not)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        problems.add(path, f"cannot be read as UTF-8 text ({error})")
        return None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except StrictJsonError as error:
        problems.add(path, f"not strict JSON: {error}")
    except json.JSONDecodeError as error:
        problems.add(path, f"not strict JSON: {error.msg} at line {error.lineno} "
                     f"column {error.colno}")
    return None


def pictures_of(data: Any, path: Path, problems: Problems) -> list[Any]:
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    if data is not None:
        problems.add(path, f"expected a picture object or a list of them, found "
                     f"{type(data).__name__}")
    return []


def picture_name(entry: Any, index: int) -> str:
    image = entry.get("image") if isinstance(entry, dict) else None
    if isinstance(image, dict) and isinstance(image.get("id"), str):
        return f"picture {image['id']}"
    return f"picture [{index}]"


class _Checker:
    def __init__(self, path: Path, ontology: Ontology, problems: Problems) -> None:
        self.path = path
        self.ontology = ontology
        self.problems = problems

    def add(self, index: int, where: str, message: str) -> None:
        self.problems.add(self.path, message, index, where)

    def picture(self, index: int, entry: Any) -> None:
        name = picture_name(entry, index)
        if not isinstance(entry, dict):
            self.add(index, name, "a picture is a JSON object")
            return
        for key in sorted(set(entry) - PICTURE_KEYS):
            self.add(index, name, f"unknown field {key!r}")
        for key in REQUIRED:
            if key not in entry:
                self.add(index, name, f"missing {key!r}")
        image = entry.get("image")
        size: tuple[int, int] | None = None
        if not isinstance(image, dict) or not isinstance(image.get("id"), str) \
                or not image["id"].strip():
            self.add(index, name, '"image" needs an "id" (the image id in the project)')
        else:
            for key in sorted(set(image) - {"id", "file_name", "width", "height"}):
                self.add(index, name, f"unknown image field {key!r}")
            if isinstance(image.get("width"), int) and isinstance(image.get("height"), int):
                size = (image["width"], image["height"])
        descriptions = entry.get("descriptions", {})
        if not isinstance(descriptions, dict) or set(descriptions) != {"general", "concise"} \
                or not all(isinstance(v, str) for v in descriptions.values()):
            self.add(index, name, '"descriptions" holds the strings "general" and "concise"')
        self.overall(index, name, entry.get("overall", {}))
        garments = entry.get("garments", [])
        if not isinstance(garments, list):
            self.add(index, name, '"garments" must be a list')
            garments = []
        ids: Counter[str] = Counter()
        listed: Counter[str] = Counter()
        for number, garment in enumerate(garments):
            self.garment(index, name, number, garment, size, ids)
            if isinstance(garment, dict) and garment.get("type") in GARMENT_TYPES:
                listed[garment["type"]] += 1
        loose = entry.get("unattached_parts", [])
        if not isinstance(loose, list):
            self.add(index, name, '"unattached_parts" must be a list')
            loose = []
        for number, part in enumerate(loose):
            self.part(index, f"{name} unattached part [{number}]", part, size, ids)
        self.counts(index, name, entry.get("garment_count", {}), listed, garments)
        self.duplicates(index, name, garments)

    def counts(self, index: int, name: str, counted: Any, listed: Counter[str],
               garments: list[Any]) -> None:
        if not isinstance(counted, dict):
            self.add(index, name, '"garment_count" must map garment types to counts')
            return
        for key, value in counted.items():
            if key not in GARMENT_TYPES:
                self.add(index, name, f"garment_count names {key!r}, not one of "
                         f"{', '.join(GARMENT_TYPES)}")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
                self.add(index, name, f"garment_count of {key!r} must be a whole number")
        for kind in GARMENT_TYPES:
            number = counted.get(kind, 0)
            if not isinstance(number, int) or number == listed[kind]:
                continue
            which = [g.get("id") for g in garments
                     if isinstance(g, dict) and g.get("type") == kind]
            if listed[kind] > number:
                self.add(index, f"{name} garments {', '.join(map(str, which))}",
                         f"{listed[kind]} {kind} listed but {number} counted: a listed "
                         "garment is not counted")
            else:
                self.add(index, name, f"{number} {kind} counted but {listed[kind]} listed"
                         f"{' (' + ', '.join(map(str, which)) + ')' if which else ''}: a "
                         "counted garment is not listed")

    def duplicates(self, index: int, name: str, garments: list[Any]) -> None:
        by_category: dict[str, list[dict[str, Any]]] = {}
        for garment in garments:
            if isinstance(garment, dict) and isinstance(garment.get("category"), str):
                by_category.setdefault(garment["category"], []).append(garment)
        for category, same in by_category.items():
            if len(same) < 2:
                continue
            regions = [_region_key(g) for g in same]
            if None in regions or len(set(regions)) < len(regions):
                ids = ", ".join(str(g.get("id")) for g in same)
                self.add(index, f"{name} garments {ids}",
                         f"category {category!r} is listed {len(same)} times without regions "
                         "that tell the items apart (list it once, or give each its region)")

    def overall(self, index: int, name: str, overall: Any) -> None:
        if not isinstance(overall, dict):
            self.add(index, name, '"overall" must map style/occasion/season/scene to names')
            return
        for field_name, values in overall.items():
            if field_name not in OUTFIT_FIELDS:
                self.add(index, name, f"overall names {field_name!r}, not one of "
                         f"{', '.join(OUTFIT_FIELDS)}")
                continue
            for value in self.names(index, f"{name} overall {field_name}", values):
                if self.ontology.find("outfit", value, field_name) is None:
                    self.add(index, name, f"{field_name} {value!r} is not in the ontology")

    def names(self, index: int, where: str, values: Any) -> list[str]:
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            self.add(index, where, "must be a list of names")
            return []
        for value, count in Counter(values).items():
            if count > 1:
                self.add(index, where, f"{value!r} is listed {count} times")
        return list(dict.fromkeys(values))

    def attributes(self, index: int, where: str, attributes: Any) -> None:
        if not isinstance(attributes, dict):
            self.add(index, where, '"attributes" must map supercategories to names')
            return
        for supercategory, values in attributes.items():
            for value in self.names(index, f"{where} {supercategory}", values):
                if self.ontology.find("attribute", value, supercategory) is None:
                    self.add(index, where, f"attribute {value!r} of {supercategory!r} is not "
                             "in the ontology")

    def geometry(self, index: int, where: str, entry: dict[str, Any],
                 size: tuple[int, int] | None) -> None:
        box = entry.get("box")
        if box is not None and (
            not isinstance(box, list) or len(box) != 4 or not all(_number(v) for v in box)
            or box[2] < 0 or box[3] < 0
        ):
            self.add(index, where, "box must be [x, y, width, height]")
        mask = entry.get("mask")
        if mask is not None:
            try:
                check_rle(mask, *(size if size is not None else (None, None)))
            except RleError as error:
                self.add(index, where, f"malformed mask: {error}")
        polygon = entry.get("polygon")
        if polygon is None:
            return
        if not isinstance(polygon, list):
            self.add(index, where, "polygon must be a list of rings")
            return
        for number, ring in enumerate(polygon):
            if not isinstance(ring, list) or not all(_number(v) for v in ring):
                self.add(index, where, f"polygon ring {number} is not a list of numbers")
            elif len(ring) % 2 or len(ring) < 6:
                self.add(index, where, f"polygon ring {number} has {len(ring)} coordinates "
                         "(an even number, at least six)")
            elif size is not None and any(
                not (0 <= ring[i] <= size[0] and 0 <= ring[i + 1] <= size[1])
                for i in range(0, len(ring), 2)
            ):
                self.add(index, where, f"polygon ring {number} leaves the "
                         f"{size[0]}x{size[1]} picture")

    def garment(self, index: int, name: str, number: int, garment: Any,
                size: tuple[int, int] | None, ids: Counter[str]) -> None:
        where = f"{name} garment [{number}]"
        if not isinstance(garment, dict):
            self.add(index, where, "a garment is a JSON object")
            return
        if isinstance(garment.get("id"), str):
            where = f"{name} garment {garment['id']}"
        self._identity(index, where, garment, ids)
        for key in sorted(set(garment) - GARMENT_KEYS):
            self.add(index, where, f"unknown field {key!r}")
        category = garment.get("category")
        entry = self.ontology.find("category", category) if isinstance(category, str) else None
        if entry is None:
            self.add(index, where, f"category {category!r} is not in the ontology")
        elif entry.supercategory in PART_SUPERCATEGORIES:
            self.add(index, where, f"{category!r} is a part, not a garment")
        elif garment.get("type") != entry.garment_type:
            self.add(index, where, f"type {garment.get('type')!r} is not the type of "
                     f"{category!r} ({entry.garment_type})")
        self.geometry(index, where, garment, size)
        self.attributes(index, where, garment.get("attributes", {}))
        parts = garment.get("parts", [])
        if not isinstance(parts, list):
            self.add(index, where, '"parts" must be a list')
            return
        for part_number, part in enumerate(parts):
            self.part(index, f"{where} part [{part_number}]", part, size, ids)

    def part(self, index: int, where: str, part: Any, size: tuple[int, int] | None,
             ids: Counter[str]) -> None:
        if not isinstance(part, dict):
            self.add(index, where, "a part is a JSON object")
            return
        if isinstance(part.get("id"), str):
            where = f"{where.rsplit(' part', 1)[0]} part {part['id']}"
        self._identity(index, where, part, ids)
        for key in sorted(set(part) - PART_KEYS):
            self.add(index, where, f"unknown field {key!r}")
        category = part.get("category")
        entry = self.ontology.find("category", category) if isinstance(category, str) else None
        if entry is None:
            self.add(index, where, f"category {category!r} is not in the ontology")
        elif entry.supercategory not in PART_SUPERCATEGORIES:
            self.add(index, where, f"{category!r} is a garment, not a part")
        self.geometry(index, where, part, size)
        self.attributes(index, where, part.get("attributes", {}))

    def _identity(self, index: int, where: str, entry: dict[str, Any],
                  ids: Counter[str]) -> None:
        identity = entry.get("id")
        if not isinstance(identity, str) or not identity.strip():
            self.add(index, where, "needs an id")
            return
        ids[identity] += 1
        if ids[identity] == 2:
            self.add(index, where, f"id {identity!r} is used twice in the picture")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _region_key(garment: dict[str, Any]) -> str | None:
    shape = {k: garment[k] for k in ("box", "polygon", "mask") if garment.get(k)}
    return json.dumps(shape, sort_keys=True) if shape else None


def check_pictures(path: Path, pictures: list[Any], ontology: Ontology,
                   problems: Problems) -> None:
    """Every problem of every picture, named by picture and garment."""
    checker = _Checker(path, ontology, problems)
    seen: dict[str, int] = {}
    for index, entry in enumerate(pictures):
        checker.picture(index, entry)
        name = picture_name(entry, index)
        if name in seen and not name.endswith("]"):
            checker.add(index, name, f"the picture is listed twice (first at [{seen[name]}])")
        seen.setdefault(name, index)
