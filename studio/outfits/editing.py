"""Changing outfits: every edit is one ``project.change`` (one transaction, one audit row
naming the picture, one ``outfits`` event after commit).

Labels follow the rule of the flat attribute labels: a decision is about a fact (this
region has this attribute), so removing an attribute that an import or a model gave
rejects every row of that fact, and a reviewer's accept or reject sets them all. Review is
by a second person: nobody reviews a label or region only they made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studio.errors import ValidationError
from studio.outfits.ontology import load_ontology, seed_studio_ontology
from studio.outfits.records import (
    OUTFIT_FIELDS,
    PART_SUPERCATEGORIES,
    ROLES,
    STATUSES,
    Box,
    Polygon,
    dumps,
)
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import outfits as repo

ENTITY = "outfit_picture"
REGION_LABELS = "outfit_region_attributes"
OUTFIT_LABELS = "outfit_attributes"
UNSET: Any = object()


class OutfitError(ValidationError):
    """An outfit edit that cannot be made (unknown region, wrong kind of value …)."""


def ensure_ontology(project: Project) -> None:
    """Seed the studio's ontology once, so a project can be annotated before any import
    (nothing to audit: no person's work changes; a read-only project is left alone)."""
    if project.read_only or any(e.origin == "studio" for e in load_ontology(project).entries):
        return
    with project.writing("outfits"):
        seed_studio_ontology(project)


def ensure_picture(project: Project, actor: str, image_id: str) -> bool:
    """Make an image an outfit picture (seeding the studio ontology); True when new."""
    if repo.picture_row(project, image_id) is not None:
        return False
    if project.image(image_id) is None:
        raise OutfitError(f"No image {image_id!r} in the project.")
    with project.change(actor, "outfits.add_picture", ENTITY, image_id) as record:
        seed_studio_ontology(project)
        repo.insert_picture(project, {
            "image_id": image_id, "general": "", "concise": "", "description_source": "person",
            "dataset": "", "external_id": None, "raw": None,
            "position": repo.next_picture_position(project), "updated_at": utc_now(),
        })
        record["after"] = {"picture": image_id}
    return True


def _region(project: Project, region_id: int) -> dict[str, Any]:
    row = repo.region_row(project, region_id)
    if row is None:
        raise OutfitError(f"No region {region_id} in the project.")
    return row


def _check_geometry(box: Box | None, polygon: Polygon | None) -> None:
    if box is not None and (len(box) != 4 or box[2] < 0 or box[3] < 0):
        raise OutfitError(f"A box is [x, y, width, height] with a non-negative size, not {box}.")
    for ring in polygon or ():
        if len(ring) % 2 or len(ring) < 6:
            raise OutfitError("A polygon ring needs at least three points (x, y pairs).")


def _role_for(project: Project, category_id: int) -> str:
    entry = load_ontology(project).by_id.get(category_id)
    if entry is None or entry.kind != "category":
        raise OutfitError(f"{category_id} is not a category of the outfit ontology.")
    return "part" if entry.supercategory in PART_SUPERCATEGORIES else "garment"


def add_region(
    project: Project, actor: str, image_id: str, category_id: int, *,
    box: Box | None = None, polygon: Polygon | None = None, garment_id: int | None = None,
    role: str | None = None, source: str = "person", confidence: float | None = None,
    model: str = "",
) -> int:
    """Add a garment or part (its role follows the category unless given); returns its id."""
    ensure_picture(project, actor, image_id)
    role = role or _role_for(project, category_id)
    if role not in ROLES:
        raise OutfitError(f"Unknown region role {role!r}.")
    _check_geometry(box, polygon)
    if garment_id is not None:
        _check_garment(project, image_id, garment_id)
    status = "suggested" if source == "model" else "accepted"
    with project.change(actor, "outfits.add_region", ENTITY, image_id) as record:
        region_id = repo.insert_region(project, {
            "image_id": image_id, "garment_id": garment_id, "role": role,
            "category_id": category_id,
            "box": dumps(list(box)) if box is not None else None,
            "polygon": dumps([list(r) for r in polygon]) if polygon else None,
            "rle": None, "source": source, "model": model, "confidence": confidence,
            "status": status, "author": actor, "reviewer": "", "external_id": None,
            "raw": None, "position": repo.next_region_position(project, image_id),
            "updated_at": utc_now(),
        })
        record["after"] = {"region": region_id, "role": role, "category": category_id,
                           "box": box, "polygon": polygon, "garment": garment_id}
    return region_id


def _check_garment(project: Project, image_id: str, garment_id: int) -> None:
    garment = _region(project, garment_id)
    if garment["image_id"] != image_id or garment["role"] != "garment":
        raise OutfitError(f"Region {garment_id} is not a garment of picture {image_id}.")


def edit_region(
    project: Project, actor: str, region_id: int, *, category_id: int = UNSET,
    box: Box | None = UNSET, polygon: Polygon | None = UNSET, garment_id: int | None = UNSET,
) -> None:
    """Change what a region is, where it is, or which garment a part belongs to."""
    row = _region(project, region_id)
    fields: dict[str, Any] = {}
    if category_id is not UNSET:
        fields["category_id"] = category_id
        fields["role"] = _role_for(project, category_id)
        if fields["role"] == "garment":
            fields["garment_id"] = None
    if box is not UNSET or polygon is not UNSET:
        _check_geometry(None if box is UNSET else box, None if polygon is UNSET else polygon)
    if box is not UNSET:
        fields["box"] = dumps(list(box)) if box is not None else None
    if polygon is not UNSET:
        fields["polygon"] = dumps([list(r) for r in polygon]) if polygon else None
        fields["rle"] = None  # a drawn outline replaces a mask
    if garment_id is not UNSET:
        if garment_id is not None:
            _check_garment(project, row["image_id"], garment_id)
            if (fields.get("role") or row["role"]) != "part":
                raise OutfitError("Only a part can be attached to a garment.")
        fields["garment_id"] = garment_id
    if not fields:
        return
    before = {key: row[key] for key in fields}
    with project.change(actor, "outfits.edit_region", ENTITY, row["image_id"],
                        before={"region": region_id, **before}) as record:
        repo.update_region(project, region_id, {**fields, "updated_at": utc_now()})
        record["after"] = {"region": region_id, **fields}


def delete_region(project: Project, actor: str, region_id: int) -> None:
    row = _region(project, region_id)
    with project.change(actor, "outfits.delete_region", ENTITY, row["image_id"],
                        before={"region": region_id, "category": row["category_id"],
                                "uid": row.get("uid")}) as record:
        repo.delete_region(project, region_id)
        record["after"] = {"region": region_id, "deleted": True}


def set_descriptions(project: Project, actor: str, image_id: str, general: str,
                     concise: str) -> None:
    ensure_picture(project, actor, image_id)
    row = repo.picture_row(project, image_id) or {}
    if (row.get("general"), row.get("concise")) == (general, concise):
        return
    with project.change(actor, "outfits.describe", ENTITY, image_id,
                        before={"general": row.get("general"), "concise": row.get("concise")}
                        ) as record:
        repo.set_descriptions(project, image_id, general, concise, "person", utc_now())
        record["after"] = {"general": general, "concise": concise}


def _value(project: Project, value_id: int, kind: str) -> None:
    entry = load_ontology(project).by_id.get(value_id)
    if entry is None or entry.kind != kind:
        raise OutfitError(f"{value_id} is not an {kind} of the outfit ontology.")
    if kind == "outfit" and entry.supercategory not in OUTFIT_FIELDS:
        raise OutfitError(f"{entry.name!r} is not a value of {', '.join(OUTFIT_FIELDS)}.")


def _set_label(project: Project, actor: str, table: str, owner: Any, image_id: str,
               value_id: int, present: bool) -> None:
    rows = [r for r in repo.label_rows(project, table, [owner])
            if r[repo.LABEL_TABLES[table][1]] == value_id]
    before = {r["source"]: r["status"] for r in rows}
    now = utc_now()
    action = "outfits.add_label" if present else "outfits.remove_label"
    replaced = _replaced_by(project, table, owner, value_id) if present else []
    with project.change(actor, action, ENTITY, image_id,
                        before={"table": table, "owner": owner, "value": value_id,
                                "rows": before, "replaced": replaced}) as record:
        for other in replaced:  # a field that takes one value: the new one replaces it
            other_rows = [r for r in repo.label_rows(project, table, [owner])
                          if r[repo.LABEL_TABLES[table][1]] == other]
            repo.delete_label(project, table, owner, other, source="person")
            if any(r["source"] != "person" for r in other_rows):
                repo.decide_label(project, table, owner, other, "rejected", actor, now)
        if present:
            position = max((r["position"] for r in repo.label_rows(project, table, [owner])),
                           default=-1) + 1
            if any(r["source"] == "person" for r in rows):
                repo.decide_label(project, table, owner, value_id, "accepted", "", now)
            else:
                repo.upsert_label(project, table, {
                    repo.LABEL_TABLES[table][0]: owner, repo.LABEL_TABLES[table][1]: value_id,
                    "source": "person", "model": "", "confidence": 1.0, "status": "accepted",
                    "author": actor, "reviewer": "", "position": position, "updated_at": now,
                })
                if rows:
                    repo.decide_label(project, table, owner, value_id, "accepted", "", now)
        else:
            repo.delete_label(project, table, owner, value_id, source="person")
            if any(r["source"] != "person" for r in rows):
                repo.decide_label(project, table, owner, value_id, "rejected", actor, now)
        record["after"] = {"table": table, "owner": owner, "value": value_id,
                           "present": present}


def _replaced_by(project: Project, table: str, owner: Any, value_id: int) -> list[int]:
    """The values held now in the field of ``value_id`` when that field takes one value."""
    ontology = load_ontology(project)
    entry = ontology.by_id.get(value_id)
    if entry is None or not ontology.takes_one(entry):
        return []
    column = repo.LABEL_TABLES[table][1]
    held = {r[column] for r in repo.label_rows(project, table, [owner])
            if r["status"] != "rejected"}
    return sorted(v for v in held if v != value_id and (other := ontology.by_id.get(v))
                  is not None and other.supercategory == entry.supercategory)


def set_region_attribute(project: Project, actor: str, region_id: int, attribute_id: int,
                         present: bool = True) -> None:
    """A person says a region has (or has not) an attribute."""
    row = _region(project, region_id)
    _value(project, attribute_id, "attribute")
    _set_label(project, actor, REGION_LABELS, region_id, row["image_id"], attribute_id, present)


def set_outfit_value(project: Project, actor: str, image_id: str, value_id: int,
                     present: bool = True) -> None:
    """A person says the outfit has (or has not) a style, occasion, season or scene."""
    ensure_picture(project, actor, image_id)
    _value(project, value_id, "outfit")
    _set_label(project, actor, OUTFIT_LABELS, image_id, image_id, value_id, present)


def review_label(project: Project, reviewer: str, table: str, owner: Any, value_id: int,
                 status: str) -> None:
    """A second person accepts or rejects a label (every source's row of that fact)."""
    if status not in STATUSES:
        raise OutfitError(f"Unknown status {status!r}.")
    rows = [r for r in repo.label_rows(project, table, [owner])
            if r[repo.LABEL_TABLES[table][1]] == value_id]
    if not rows:
        raise OutfitError(f"No label {value_id} on {owner!r} to review.")
    authors = {r["author"] for r in rows if r["source"] != "model"}
    if authors == {reviewer}:
        raise OutfitError("A label is reviewed by a second person, not by its author.")
    image_id = owner if table == OUTFIT_LABELS else _region(project, int(owner))["image_id"]
    with project.change(reviewer, f"outfits.review_{status}", ENTITY, image_id,
                        before={"table": table, "owner": owner, "value": value_id,
                                "rows": {r["source"]: r["status"] for r in rows}}) as record:
        repo.decide_label(project, table, owner, value_id, status, reviewer, utc_now())
        record["after"] = {"table": table, "owner": owner, "value": value_id, "status": status}


def review_region(project: Project, reviewer: str, region_id: int, status: str) -> None:
    row = _region(project, region_id)
    if status not in STATUSES:
        raise OutfitError(f"Unknown status {status!r}.")
    if row["source"] != "model" and row["author"] == reviewer:
        raise OutfitError("A region is reviewed by a second person, not by its author.")
    with project.change(reviewer, f"outfits.review_region_{status}", ENTITY, row["image_id"],
                        before={"region": region_id, "status": row["status"]}) as record:
        repo.update_region(project, region_id, {"status": status, "reviewer": reviewer,
                                                "updated_at": utc_now()})
        record["after"] = {"region": region_id, "status": status}


def snapshot(project: Project, image_id: str) -> dict[str, Any]:
    """One picture's rows, for undo."""
    return repo.picture_snapshot(project, image_id)


def restore(project: Project, actor: str, image_id: str, saved: Mapping[str, Any]) -> None:
    """Undo: bring one picture back to a snapshot, as one audited change."""
    with project.change(actor, "outfits.restore", ENTITY, image_id,
                        before={"regions": len(repo.region_rows(project, image_id))}) as record:
        repo.restore_picture(project, image_id, saved)
        record["after"] = {"regions": len(saved["regions"])}
