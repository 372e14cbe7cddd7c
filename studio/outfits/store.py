"""Reading outfits: the repository's rows turned into the records of this layer."""

from __future__ import annotations

from typing import Any

from studio.outfits.records import Label, Outfit, Picture, Region, loads
from studio.store import Project
from studio.store.repos import outfits as repo


def picture_from_row(row: dict[str, Any]) -> Picture:
    return Picture(
        image_id=row["image_id"],
        general=row["general"],
        concise=row["concise"],
        description_source=row["description_source"],
        dataset=row["dataset"],
        external_id=row["external_id"],
        position=row["position"],
    )


def region_from_row(row: dict[str, Any]) -> Region:
    box = loads(row["box"])
    polygon = loads(row["polygon"])
    return Region(
        id=int(row["id"]),
        image_id=row["image_id"],
        role=row["role"],
        category_id=int(row["category_id"]),
        garment_id=row["garment_id"],
        box=tuple(box) if box is not None else None,
        polygon=tuple(tuple(ring) for ring in polygon) if polygon is not None else None,
        rle=loads(row["rle"]),
        source=row["source"],
        status=row["status"],
        confidence=row["confidence"],
        model=row["model"],
        author=row["author"],
        reviewer=row["reviewer"],
        external_id=row["external_id"],
        position=row["position"],
        uid=row.get("uid") or "",
    )


def label_from_row(row: dict[str, Any], owner_column: str, value_column: str) -> Label:
    return Label(
        id=int(row["id"]),
        owner=row[owner_column],
        value_id=int(row[value_column]),
        source=row["source"],
        status=row["status"],
        confidence=row["confidence"],
        model=row["model"],
        author=row["author"],
        reviewer=row["reviewer"],
        position=row["position"],
    )


def picture_ids(project: Project) -> list[str]:
    return [row["image_id"] for row in repo.picture_rows(project)]


def load_outfit(project: Project, image_id: str) -> Outfit | None:
    row = repo.picture_row(project, image_id)
    if row is None:
        return None
    outfit = Outfit(picture_from_row(row))
    outfit.regions = [region_from_row(r) for r in repo.region_rows(project, image_id)]
    for label_row in repo.image_region_label_rows(project, image_id):
        label = label_from_row(label_row, "region_id", "attribute_id")
        outfit.region_labels.setdefault(int(label.owner), []).append(label)
    outfit.outfit_labels = [
        label_from_row(r, "image_id", "value_id")
        for r in repo.label_rows(project, "outfit_attributes", [image_id])
    ]
    return outfit


def load_outfits(project: Project) -> list[Outfit]:
    """Every picture with its regions and labels, in picture order (three queries)."""
    outfits = {row["image_id"]: Outfit(picture_from_row(row)) for row in repo.picture_rows(project)}
    for row in repo.region_rows(project):
        outfits[row["image_id"]].regions.append(region_from_row(row))
    owner_image = {r.id: o.picture.image_id for o in outfits.values() for r in o.regions}
    for row in repo.label_rows(project, "outfit_region_attributes"):
        label = label_from_row(row, "region_id", "attribute_id")
        image_id = owner_image[int(label.owner)]
        outfits[image_id].region_labels.setdefault(int(label.owner), []).append(label)
    for row in repo.label_rows(project, "outfit_attributes"):
        outfits[row["image_id"]].outfit_labels.append(
            label_from_row(row, "image_id", "value_id")
        )
    return list(outfits.values())
