"""``import fashionx`` / ``export fashionx``: one hierarchical object per picture.

Export writes what holds (accepted regions, effective labels); an exported file passes
``fashionx.check_pictures`` and imports into another project as the same outfits. An
import checks the whole file first and writes nothing when anything is wrong; a picture
that already holds exactly this annotation is skipped, one holding another is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studio.image_measures import measure_imported
from studio.importers.image_files import file_facts
from studio.importers.plan import ImagePaths, image_record
from studio.importers.validation import Problems
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.editing import ensure_ontology
from studio.outfits.fashionpedia_read import OutfitImportError, read_ontology_file
from studio.outfits.fashionx import check_pictures, load_strict, pictures_of
from studio.outfits.ontology import Ontology, load_ontology, store_fashionpedia_ontology
from studio.outfits.records import (
    GARMENT_TYPES,
    OUTFIT_FIELDS,
    PICTURE_CATEGORY,
    OntologyEntry,
    OntologyKind,
    Outfit,
    Region,
    dumps,
    effective,
)
from studio.outfits.store import load_outfit, load_outfits
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import outfits as repo

SOURCE = "fashionx"


def _attributes(labels: list, ontology: Ontology) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for label in effective(labels):
        entry = ontology.by_id[label.value_id]
        out.setdefault(entry.supercategory, []).append(entry.name)
    return out


def _shape(region: Region) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if region.box is not None:
        out["box"] = list(region.box)
    if region.polygon:
        out["polygon"] = [list(ring) for ring in region.polygon]
    if region.rle is not None:
        out["mask"] = region.rle
    return out


def picture_document(project: Project, outfit: Outfit, ontology: Ontology) -> dict[str, Any]:
    """One picture as FashionX (accepted regions, effective labels only)."""
    image = project.image(outfit.picture.image_id)
    head: dict[str, Any] = {"id": outfit.picture.image_id}
    if image is not None:
        head["file_name"] = Path(image.path).name
        if image.width and image.height:
            head.update(width=image.width, height=image.height)
    held = [r for r in outfit.regions if r.status == "accepted"]
    garments = [r for r in held if r.role == "garment"]
    counts = dict.fromkeys(GARMENT_TYPES, 0)
    listed = []
    for number, garment in enumerate(garments, start=1):
        category = ontology.by_id[garment.category_id]
        counts[category.garment_type] += 1
        gid = f"g{number}"
        parts = [
            {"id": f"{gid}.p{k}", "category": ontology.by_id[p.category_id].name,
             **_shape(p), "attributes": _attributes(outfit.region_labels.get(p.id, []),
                                                    ontology)}
            for k, p in enumerate(
                (p for p in held if p.role == "part" and p.garment_id == garment.id), start=1
            )
        ]
        listed.append({
            "id": gid, "category": category.name, "type": category.garment_type,
            **_shape(garment),
            "attributes": _attributes(outfit.region_labels.get(garment.id, []), ontology),
            "parts": parts,
        })
    garment_ids = {g.id for g in garments}
    loose = [
        {"id": f"p{k}", "category": ontology.by_id[p.category_id].name, **_shape(p),
         "attributes": _attributes(outfit.region_labels.get(p.id, []), ontology)}
        for k, p in enumerate(
            (p for p in held if p.role == "part" and p.garment_id not in garment_ids), start=1
        )
    ]
    overall: dict[str, list[str]] = {name: [] for name in OUTFIT_FIELDS}
    for label in effective(outfit.outfit_labels):
        entry = ontology.by_id[label.value_id]
        overall[entry.supercategory].append(entry.name)
    document = {
        "image": head,
        "descriptions": {"general": outfit.picture.general, "concise": outfit.picture.concise},
        "garment_count": counts,
        "garments": listed,
        "overall": overall,
    }
    if loose:
        document["unattached_parts"] = loose
    return document


def export_fashionx(project: Project, out: Path, *,
                    progress: ProgressCallback = no_progress,
                    cancel: CancelToken | None = None) -> dict[str, Any]:
    ontology = load_ontology(project)
    outfits = load_outfits(project)
    documents = []
    for done, outfit in enumerate(outfits, start=1):
        if cancel is not None:
            cancel.raise_if_cancelled()
        documents.append(picture_document(project, outfit, ontology))
        progress(done, len(outfits), "pictures")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(documents, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    beside = ontology_beside(out)
    beside.write_text(json.dumps(ontology_document(project, ontology), indent=2,
                                 ensure_ascii=False) + "\n", encoding="utf-8")
    return {
        "out": str(out),
        "ontology": str(beside),
        "pictures": len(documents),
        "garments": sum(len(d["garments"]) for d in documents),
        "parts": sum(len(g["parts"]) for d in documents for g in d["garments"])
        + sum(len(d.get("unattached_parts", [])) for d in documents),
    }


def ontology_beside(file: Path) -> Path:
    """``outfits.json`` → ``outfits.ontology.json``: the ontology an export was made with."""
    return file.with_name(f"{file.stem}.ontology.json")


def ontology_document(project: Project, ontology: Ontology) -> dict[str, Any]:
    """The project's Fashionpedia categories and attributes as a Fashionpedia ontology file
    (each entry as its file wrote it). FashionX names values by name, and Fashionpedia's
    own files do not share one ontology (the sample's attributes are not those of
    ``category_attributes_descriptions.json``), so an export carries the one it used; the
    studio's own entries need no file (every project has them)."""
    raws = {row["id"]: row["raw"] for row in repo.ontology_rows(project)}

    def entries(kind: str) -> list[dict[str, Any]]:
        out = []
        for entry in ontology.of_kind(kind):
            if entry.external_id is None:
                continue
            raw = json.loads(raws[entry.id]) if raws.get(entry.id) else None
            out.append(raw if isinstance(raw, dict) else {
                "id": entry.external_id, "name": entry.name,
                "supercategory": entry.supercategory,
                "level": entry.level if entry.level is not None else 2,
                "taxonomy_id": entry.taxonomy_id,
            })
        return out

    return {"categories": entries("category"), "attributes": entries("attribute")}


def _with_file_ontology(ontology: Ontology, categories: list[dict[str, Any]],
                        attributes: list[dict[str, Any]]) -> Ontology:
    """``ontology`` plus the entries of an ontology file not in it yet (ids to come), so
    the pictures are checked against what the project will hold."""
    added = list(ontology.entries)
    fresh = -1
    kinds: tuple[tuple[OntologyKind, list[dict[str, Any]]], ...] = (
        ("category", categories), ("attribute", attributes))
    for kind, items in kinds:
        for item in items:
            name, supercategory = item["name"], str(item.get("supercategory") or "")
            if ontology.external(kind, item["id"]) or ontology.find(kind, name, supercategory):
                continue
            added.append(OntologyEntry(id=fresh, kind=kind, name=name,
                                       supercategory=supercategory, level=item.get("level"),
                                       taxonomy_id=str(item.get("taxonomy_id") or ""),
                                       description="", external_id=item["id"],
                                       origin="fashionpedia"))
            fresh -= 1
    return Ontology(added)


def import_fashionx(project: Project, file: Path, images_dir: Path | None = None, *,
                    actor: str = "", progress: ProgressCallback = no_progress,
                    cancel: CancelToken | None = None) -> dict[str, Any]:
    """Check every picture, then write them all in one audited change (or nothing)."""
    file = Path(file).expanduser()
    images_dir = Path(images_dir).expanduser() if images_dir else file.parent / "images"
    problems = Problems(file.parent)
    ensure_ontology(project)  # the studio's values must be known to check the file
    ontology = load_ontology(project)
    categories: list[dict[str, Any]] = []
    attributes: list[dict[str, Any]] = []
    if ontology_beside(file).is_file():  # the ontology the export was made with
        categories, attributes = read_ontology_file(ontology_beside(file), ontology, problems)
        ontology = _with_file_ontology(ontology, categories, attributes)
    pictures = pictures_of(load_strict(file, problems), file, problems)
    check_pictures(file, pictures, ontology, problems)
    new_images = []
    paths = ImagePaths(project)
    skipped: list[str] = []
    for index, entry in enumerate(pictures if not len(problems) else []):
        image_id = entry["image"]["id"]
        if project.image(image_id) is None:
            name = entry["image"].get("file_name") or image_id
            facts = file_facts(images_dir / name)
            if facts is None:
                problems.add(file, f"image {image_id!r} is not in the project and "
                             f"{images_dir / name} does not exist", index, f"picture {image_id}")
                continue
            new_images.append(image_record(paths, image_id, images_dir / name, facts, SOURCE,
                                           category=PICTURE_CATEGORY))
        elif repo.picture_row(project, image_id) is not None:
            current = load_outfit(project, image_id)
            if current is not None and _same(project, current, entry, ontology):
                skipped.append(image_id)
            elif current is not None and (current.regions or current.outfit_labels
                                          or current.picture.general):
                problems.add(file, "the picture already holds a different annotation; "
                             "nothing was written", index, f"picture {image_id}")
    if len(problems):
        raise OutfitImportError("FashionX", problems.items)
    if cancel is not None:
        cancel.raise_if_cancelled()
    report = {"file": file.name, "pictures_added": 0, "pictures_known": len(skipped),
              "garments_added": 0, "parts_added": 0, "labels_added": 0}
    progress(0, len(pictures), "writing")
    with project.change(actor or SOURCE, "outfits.import_fashionx", "outfit_import",
                        file.name) as record:
        if new_images:
            project.add_image_folder(images_dir)
            project.add_images(new_images)
        if categories or attributes:
            store_fashionpedia_ontology(project, categories, attributes)
            ontology = load_ontology(project)
        for entry in pictures:
            if entry["image"]["id"] not in skipped:
                _write_picture(project, entry, ontology, actor or SOURCE, report)
        record["after"] = report
    measure_imported(project, new_images, progress=progress, cancel=cancel)  # kept if cancelled
    progress(len(pictures), len(pictures), "done")
    return report


def _same(project: Project, outfit: Outfit, entry: dict[str, Any], ontology: Ontology) -> bool:
    mine = picture_document(project, outfit, ontology)
    return _comparable(mine) == _comparable(entry)


def _comparable(document: dict[str, Any]) -> str:
    copy = {k: v for k, v in document.items() if k != "image"}
    copy["garment_count"] = {k: v for k, v in document["garment_count"].items() if v}
    copy["overall"] = {k: v for k, v in document["overall"].items() if v}
    return json.dumps(copy, sort_keys=True)


def _write_picture(project: Project, entry: dict[str, Any], ontology: Ontology, actor: str,
                   report: dict[str, Any]) -> None:
    image_id = entry["image"]["id"]
    now = utc_now()
    descriptions = entry["descriptions"]
    if repo.picture_row(project, image_id) is None:
        repo.insert_picture(project, {
            "image_id": image_id, "general": descriptions["general"],
            "concise": descriptions["concise"], "description_source": "imported",
            "dataset": SOURCE, "external_id": None, "raw": None,
            "position": repo.next_picture_position(project), "updated_at": now,
        })
    else:
        repo.set_descriptions(project, image_id, descriptions["general"],
                              descriptions["concise"], "imported", now)
    report["pictures_added"] += 1
    position = repo.next_region_position(project, image_id)

    def region(item: dict[str, Any], role: str, garment_id: int | None) -> int:
        nonlocal position
        category = ontology.find("category", item["category"])
        assert category is not None  # checked
        region_id = repo.insert_region(project, {
            "image_id": image_id, "garment_id": garment_id, "role": role,
            "category_id": category.id, "box": dumps(item.get("box")),
            "polygon": dumps(item.get("polygon")), "rle": dumps(item.get("mask")),
            "source": "imported", "model": "", "confidence": None, "status": "accepted",
            "author": actor, "reviewer": "", "external_id": None, "raw": None,
            "position": position, "updated_at": now,
        })
        position += 1
        order = 0
        for supercategory, names in item.get("attributes", {}).items():
            for name in dict.fromkeys(names):
                attribute = ontology.find("attribute", name, supercategory)
                assert attribute is not None  # checked
                repo.upsert_label(project, "outfit_region_attributes", {
                    "region_id": region_id, "attribute_id": attribute.id, "source": "imported",
                    "model": "", "confidence": None, "status": "accepted", "author": actor,
                    "reviewer": "", "position": order, "updated_at": now,
                })
                order += 1
                report["labels_added"] += 1
        return region_id

    for garment in entry["garments"]:
        garment_id = region(garment, "garment", None)
        report["garments_added"] += 1
        for part in garment.get("parts", []):
            region(part, "part", garment_id)
            report["parts_added"] += 1
    for part in entry.get("unattached_parts", []):
        region(part, "part", None)
        report["parts_added"] += 1
    order = 0
    for field_name, names in entry["overall"].items():
        for name in dict.fromkeys(names):
            value = ontology.find("outfit", name, field_name)
            assert value is not None  # checked
            repo.upsert_label(project, "outfit_attributes", {
                "image_id": image_id, "value_id": value.id, "source": "imported", "model": "",
                "confidence": None, "status": "accepted", "author": actor, "reviewer": "",
                "position": order, "updated_at": now,
            })
            order += 1
            report["labels_added"] += 1
