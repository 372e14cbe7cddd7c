"""``import fashionpedia``: a checked Fashionpedia file into outfit pictures, in one change.

Garments and parts become regions; a part is linked to the garment of its picture that
contains it most (polygon vertices inside the garment's polygon, blended with the box
overlap). Importing the same file again adds nothing: a picture is known by its
Fashionpedia image id and a region by its annotation id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import ValidationError
from studio.image_measures import measure_imported
from studio.importers.image_files import file_facts
from studio.importers.plan import ImagePaths, image_record
from studio.importers.validation import Problems
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.fashionpedia_read import (
    FashionpediaFile,
    OutfitImportError,
    header_text,
    read_fashionpedia,
)
from studio.outfits.geometry import containment
from studio.outfits.ontology import load_ontology, store_fashionpedia_ontology
from studio.outfits.records import PART_SUPERCATEGORIES, PICTURE_CATEGORY, dumps
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import outfits as repo

DATASET = "fashionpedia"
SOURCE = "fashionpedia"
MIN_CONTAINMENT = 0.2  # a part less inside any garment than this stays unattached


@dataclass
class FashionpediaReport:
    file: str
    pictures_added: int = 0
    images_added: int = 0
    garments_added: int = 0
    parts_added: int = 0
    parts_attached: int = 0
    attributes_added: int = 0
    regions_known: int = 0
    missing_images: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def import_fashionpedia(
    project: Project,
    file: Path,
    images_dir: Path | None = None,
    *,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> FashionpediaReport:
    """Check the whole file, then write all of it in one audited change (or nothing)."""
    cancel = cancel or CancelToken()
    file = Path(file).expanduser()
    images_dir = Path(images_dir).expanduser() if images_dir else file.parent / "images"
    problems = Problems(file.parent)
    progress(0, 3, "reading")
    parsed = read_fashionpedia(file, load_ontology(project), problems)
    if len(problems) or parsed is None:
        raise OutfitImportError("Fashionpedia", problems.items)
    cancel.raise_if_cancelled()
    progress(1, 3, "checking images")
    report = FashionpediaReport(file.name)
    images = []
    paths = ImagePaths(project)
    for entry in parsed.images:
        facts = file_facts(images_dir / entry["file_name"])
        if facts is None:
            report.missing_images.append(entry["file_name"])
        images.append(image_record(paths, Path(entry["file_name"]).stem,
                                   images_dir / entry["file_name"], facts, SOURCE,
                                   category=PICTURE_CATEGORY))
    cancel.raise_if_cancelled()
    progress(2, 3, "writing")
    with project.change(actor or SOURCE, "outfits.import_fashionpedia", "outfit_import",
                        file.name) as record:
        project.add_image_folder(images_dir)
        report.images_added = project.add_images(images)
        _write(project, parsed, [image.id for image in images], actor or SOURCE, report)
        cancel.raise_if_cancelled()
        record["after"] = report.to_dict()
    measure_imported(project, images, progress=progress, cancel=cancel)  # kept if cancelled
    progress(3, 3, "done")
    return report


def _write(project: Project, parsed: FashionpediaFile, image_ids: list[str], actor: str,
           report: FashionpediaReport) -> None:
    ids = store_fashionpedia_ontology(project, parsed.categories, parsed.attributes)
    now = utc_now()
    repo.save_source(project, DATASET, parsed.path.name, header_text(parsed),
                     json.dumps(parsed.format) if parsed.format else None, now)
    known_pictures = repo.pictures_by_external_id(project, DATASET)
    picture_of: dict[int, str] = {}
    position = repo.next_picture_position(project)
    for entry, image_id in zip(parsed.images, image_ids, strict=True):
        if entry["id"] in known_pictures:
            picture_of[entry["id"]] = known_pictures[entry["id"]]
            continue
        added = repo.insert_picture(project, {
            "image_id": image_id, "general": "", "concise": "", "description_source": "imported",
            "dataset": DATASET, "external_id": entry["id"], "raw": dumps(entry),
            "position": position, "updated_at": now,
        })
        if not added:
            raise ValidationError(
                f"{parsed.path.name}: image {entry['file_name']} is already an outfit picture "
                "of another file; nothing was written."
            )
        position += 1
        report.pictures_added += 1
        picture_of[entry["id"]] = image_id
    known_regions = {
        (row["image_id"], row["external_id"]) for row in repo.region_rows(project)
        if row["external_id"] is not None
    }
    categories = {c["id"]: c for c in parsed.categories}
    by_picture: dict[str, list[tuple[int, Any]]] = {}
    for annotation in parsed.annotations:
        image_id = picture_of[annotation.image_id]
        if (image_id, annotation.raw["id"]) in known_regions:
            report.regions_known += 1
            continue
        category = categories[annotation.category_id]
        is_part = category.get("supercategory") in PART_SUPERCATEGORIES
        region_id = repo.insert_region(project, {
            "image_id": image_id, "garment_id": None, "role": "part" if is_part else "garment",
            "category_id": ids[("category", annotation.category_id)],
            "box": dumps(annotation.box), "polygon": dumps(annotation.polygon),
            "rle": dumps(annotation.rle), "source": "imported", "model": "",
            "confidence": None, "status": "accepted", "author": actor, "reviewer": "",
            "external_id": annotation.raw["id"], "raw": dumps(annotation.raw),
            "position": annotation.index, "updated_at": now,
        })
        by_picture.setdefault(image_id, []).append((region_id, annotation))
        if is_part:
            report.parts_added += 1
        else:
            report.garments_added += 1
        for order, attribute in enumerate(annotation.attribute_ids):
            repo.upsert_label(project, "outfit_region_attributes", {
                "region_id": region_id, "attribute_id": ids[("attribute", attribute)],
                "source": "imported", "model": "", "confidence": None, "status": "accepted",
                "author": actor, "reviewer": "", "position": order, "updated_at": now,
            })
            report.attributes_added += 1
    for regions in by_picture.values():
        report.parts_attached += _attach_parts(project, regions, categories)


def _attach_parts(project: Project, regions: list[tuple[int, Any]],
                  categories: dict[int, dict[str, Any]]) -> int:
    def is_part(annotation: Any) -> bool:
        return categories[annotation.category_id].get("supercategory") in PART_SUPERCATEGORIES

    garments = [(rid, a) for rid, a in regions if not is_part(a) and a.bounds]
    attached = 0
    for region_id, part in regions:
        if not is_part(part) or not part.bounds:
            continue
        scored = [
            (containment(part.bounds, part.polygon, g.bounds, g.polygon), -_size(g), gid)
            for gid, g in garments
        ]
        if not scored:
            continue
        best = max(scored)
        if best[0] >= MIN_CONTAINMENT:
            repo.update_region(project, region_id, {"garment_id": best[2]})
            attached += 1
    return attached


def _size(annotation: Any) -> float:
    box = annotation.bounds
    return float(box[2] * box[3]) if box else 0.0
