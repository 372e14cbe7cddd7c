"""``export fashionpedia``: the project's outfits as one Fashionpedia (COCO-style) file.

Every imported entry is written from what the file had (``raw``), with the fields the
studio edits (category, attributes, segmentation, box) replaced only where they changed,
so an untouched import comes back equal, numbers as written, in the file's own layout.
A changed geometry gets a recomputed ``area``. Regions and ontology entries made in the
studio get fresh ids after the largest known one. Rejected and unreviewed model regions
are left out; so are attributes that do not hold (see ``records.effective``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studio.importers.json_format import dump
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.fashionpedia import DATASET
from studio.outfits.geometry import decode_counts, polygon_area, polygon_bounds, rle_area
from studio.outfits.ontology import Ontology, load_ontology
from studio.outfits.records import OntologyEntry, Outfit, Region, effective, loads
from studio.outfits.store import load_outfits
from studio.store import Project
from studio.store.repos import outfits as repo

DEFAULT_FORMAT = {"indent": 2, "separators": [",", ": "], "ensure_ascii": True, "newline": True}
DEFAULT_HEADER = {"info": {"description": "Exported by CIR Studio", "version": "1.0"}}


def export_fashionpedia(project: Project, out: Path, *,
                        progress: ProgressCallback = no_progress,
                        cancel: CancelToken | None = None) -> dict[str, Any]:
    """Write the file; returns counts (pictures, annotations, categories, attributes)."""
    document, options = fashionpedia_document(project, progress)
    if cancel is not None:
        cancel.raise_if_cancelled()
    out = Path(out)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True)
    out.write_text(dump(document, options), encoding="utf-8")
    return {
        "out": str(out),
        "pictures": len(document["images"]),
        "annotations": len(document["annotations"]),
        "categories": len(document["categories"]),
        "attributes": len(document["attributes"]),
    }


def fashionpedia_document(project: Project, progress: ProgressCallback = no_progress
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    ontology = load_ontology(project)
    outfits = load_outfits(project)
    sources = repo.source_rows(project, DATASET)
    header: dict[str, Any] = dict(DEFAULT_HEADER)
    keys = ["info", "images", "annotations", "categories", "attributes"]
    options: dict[str, Any] = dict(DEFAULT_FORMAT)
    if sources:
        stored = json.loads(sources[0]["header"])
        header, keys = stored["fields"], stored["keys"]
        if sources[0]["format"]:
            options = json.loads(sources[0]["format"])
    raws = {row["id"]: loads(row["raw"]) for row in repo.ontology_rows(project)}
    ids = _OntologyIds(ontology, raws)
    picture_rows = {row["image_id"]: row for row in repo.picture_rows(project)}
    images: list[dict[str, Any]] = []
    next_image = 1 + max((o.picture.external_id or 0 for o in outfits), default=0)
    picture_ids: dict[str, int] = {}
    for outfit in outfits:
        raw = loads(picture_rows[outfit.picture.image_id]["raw"])
        if raw is None:
            raw = _new_image(project, outfit, next_image)
            next_image += 1
        picture_ids[outfit.picture.image_id] = raw["id"]
        images.append(raw)
    region_raws = {row["id"]: loads(row["raw"]) for row in repo.region_rows(project)}
    next_annotation = 1 + repo.max_region_external_id(project)
    annotations: list[tuple[tuple[int, int, int, int], dict[str, Any]]] = []
    for done, outfit in enumerate(outfits):
        for region in outfit.regions:
            if region.status != "accepted":
                continue
            raw = region_raws.get(region.id)
            entry = _annotation(region, raw, picture_ids[region.image_id],
                                outfit.region_labels.get(region.id, []), ids, next_annotation)
            if raw is None:
                next_annotation += 1
            order = (0, region.position, 0, 0) if raw else (1, done, region.position, region.id)
            annotations.append((order, entry))
        progress(done + 1, len(outfits), "pictures")
    annotations.sort(key=lambda item: item[0])
    lists = {
        "images": images,
        "annotations": [entry for _, entry in annotations],
        "categories": ids.entries("category"),
        "attributes": ids.entries("attribute"),
    }
    document = {key: lists[key] if key in lists else header.get(key) for key in keys}
    for key, value in lists.items():
        document.setdefault(key, value)
    return document, options


class _OntologyIds:
    """Fashionpedia ids of ontology entries: the file's own, or fresh ones for entries the
    studio added that an exported region uses."""

    def __init__(self, ontology: Ontology, raws: dict[int, Any]) -> None:
        self.ontology = ontology
        self.raws = raws
        self.added: dict[str, list[OntologyEntry]] = {"category": [], "attribute": []}
        self.fresh: dict[int, int] = {}

    def id_of(self, entry: OntologyEntry) -> int:
        if entry.external_id is not None:
            return entry.external_id
        if entry.id not in self.fresh:
            taken = [e.external_id or 0 for e in self.ontology.of_kind(entry.kind)]
            taken += [self.fresh[e.id] for e in self.added[entry.kind]]
            self.fresh[entry.id] = 1 + max(taken, default=-1)
            self.added[entry.kind].append(entry)
        return self.fresh[entry.id]

    def entries(self, kind: str) -> list[dict[str, Any]]:
        known = [e for e in self.ontology.of_kind(kind) if e.external_id is not None]
        own = [self.raws.get(e.id) or _entry(e, e.external_id or 0) for e in known]
        return own + [_entry(e, self.fresh[e.id]) for e in self.added[kind]]


def _entry(entry: OntologyEntry, external_id: int) -> dict[str, Any]:
    return {
        "id": external_id,
        "name": entry.name,
        "supercategory": entry.supercategory,
        "level": entry.level if entry.level is not None else 2,
        "taxonomy_id": entry.taxonomy_id,
    }


def _new_image(project: Project, outfit: Outfit, image_id: int) -> dict[str, Any]:
    image = project.image(outfit.picture.image_id)
    name = Path(image.path).name if image else outfit.picture.image_id
    return {
        "id": image_id,
        "width": image.width if image else None,
        "height": image.height if image else None,
        "file_name": name,
    }


def _segmentation(region: Region) -> Any:
    if region.rle is not None:
        return region.rle
    return [list(ring) for ring in region.polygon or ()]


def _area(region: Region) -> float:
    if region.rle is not None:
        return float(rle_area(decode_counts(region.rle["counts"])))
    if region.polygon:
        return polygon_area(region.polygon)
    if region.box is not None:
        return float(region.box[2] * region.box[3])
    return 0.0


def _annotation(region: Region, raw: dict[str, Any] | None, image_id: int, labels: list,
                ids: _OntologyIds, fresh_id: int) -> dict[str, Any]:
    category = ids.ontology.by_id[region.category_id]
    attributes = [
        ids.id_of(ids.ontology.by_id[label.value_id])
        for label in effective(labels)
        if ids.ontology.by_id[label.value_id].kind == "attribute"
    ]
    segmentation = _segmentation(region)
    current: dict[str, Any] = {
        "image_id": image_id,
        "category_id": ids.id_of(category),
        "attribute_ids": attributes,
        "segmentation": segmentation,
    }
    if raw is None:
        box = region.box or polygon_bounds(region.polygon or ())
        entry = {**current, "area": _area(region), "id": fresh_id, "iscrowd": 0}
        if box is not None:
            entry["bbox"] = list(box)
        return entry
    entry = dict(raw)
    for key, value in current.items():
        if raw.get(key, [] if key in ("attribute_ids", "segmentation") else None) != value:
            entry[key] = value
    if raw.get("segmentation", []) != segmentation:
        entry["area"] = _area(region)
    written_box = list(region.box) if region.box is not None else None
    if raw.get("bbox") != written_box:
        if written_box is None:
            entry.pop("bbox", None)
        else:
            entry["bbox"] = written_box
    return entry
