"""The Outfit view's state without Qt: which picture and region are current, what typing
a category or an attribute means, and undo.

Every edit goes through ``studio.outfits.editing`` (one audited change each). Undo keeps
a snapshot of the picture taken before each edit, so any edit (a move, a deletion with
its labels, an attribute) comes back exactly, with the same record identities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.outfits import editing
from studio.outfits.ontology import Ontology, load_ontology
from studio.outfits.records import OUTFIT_FIELDS, Box, OntologyEntry, Outfit, Polygon, Region
from studio.outfits.store import load_outfit, picture_ids
from studio.store import Project

UNDO_DEPTH = 100


def completion_text(entry: OntologyEntry) -> str:
    """How an entry reads in a completer: 'sleeve — garment parts'."""
    return f"{entry.name} — {entry.supercategory}" if entry.supercategory else entry.name


def _split_field(text: str) -> tuple[str, str]:
    """'style: formal' (as a chip reads) -> ('style', 'formal'); 'formal' -> ('', 'formal')."""
    field_name, sep, name = text.partition(":")
    return (field_name.strip().lower(), name.strip()) if sep else ("", text.strip())


def lookup(ontology: Ontology, kind: str, text: str) -> OntologyEntry | None:
    """An entry from its completion text, from 'field: name' (as a chip reads), or from a
    name alone when that is unique."""
    text = text.strip()
    for entry in ontology.of_kind(kind):
        if completion_text(entry) == text:
            return entry
    field_name, name = _split_field(text)
    matches = [e for e in ontology.of_kind(kind) if e.name.lower() == name.lower()
               and (not field_name or e.supercategory.lower() == field_name)]
    return matches[0] if len(matches) == 1 else None


def explain_unknown(ontology: Ontology, kind: str, text: str, what: str) -> str:
    """Why ``text`` was not taken, naming the field and the nearest allowed values."""
    import difflib

    field_name, name = _split_field(text)
    entries = [e for e in ontology.of_kind(kind)
               if not field_name or e.supercategory.lower() == field_name]
    if field_name and entries:
        what = f"{field_name} value"
    names = sorted({e.name for e in entries})
    lowered = {n.lower(): n for n in names}
    nearest = [lowered[n] for n in difflib.get_close_matches(name.lower(), list(lowered),
                                                             n=4, cutoff=0.4)]
    nearest += [n for n in names if name.lower()[:3] in n.lower() and n not in nearest]
    said = f"{name!r} is not a {what} of the ontology."
    if nearest[:4]:
        return f"{said} Nearest allowed: {', '.join(nearest[:4])}."
    return f"{said} Allowed: {', '.join(names[:8])}{' …' if len(names) > 8 else ''}."


@dataclass
class OutfitController:
    project: Project
    actor: str
    image_ids: list[str] = field(default_factory=list)
    index: int = -1
    region_id: int | None = None
    outfit: Outfit | None = None
    ontology: Ontology = field(default_factory=Ontology)
    undo_stack: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def reload(self, image_ids: list[str] | None = None) -> None:
        """Re-read pictures (all outfit pictures, or the images given) and the ontology."""
        editing.ensure_ontology(self.project)
        self.ontology = load_ontology(self.project)
        current = self.image_id
        self.image_ids = list(image_ids) if image_ids is not None else picture_ids(self.project)
        if current in self.image_ids:
            self.index = self.image_ids.index(current)
        else:
            self.index = 0 if self.image_ids else -1
        self._load()

    @property
    def image_id(self) -> str | None:
        return self.image_ids[self.index] if 0 <= self.index < len(self.image_ids) else None

    def _load(self) -> None:
        image_id = self.image_id
        self.outfit = load_outfit(self.project, image_id) if image_id else None
        ids = [r.id for r in self.regions()]
        if self.region_id not in ids:
            self.region_id = ids[0] if ids else None

    # -- moving ---------------------------------------------------------------------

    def go(self, step: int) -> None:
        if self.image_ids:
            self.index = (self.index + step) % len(self.image_ids)
            self.region_id = None
            self._load()

    def regions(self) -> list[Region]:
        """Garments, each followed by its parts, then parts on no garment."""
        if self.outfit is None:
            return []
        ordered: list[Region] = []
        for garment in self.outfit.garments():
            ordered.append(garment)
            ordered += self.outfit.parts_of(garment.id)
        placed = {r.id for r in ordered}
        return ordered + [r for r in self.outfit.regions if r.id not in placed]

    def region(self) -> Region | None:
        return next((r for r in self.regions() if r.id == self.region_id), None)

    def step_region(self, step: int) -> None:
        ids = [r.id for r in self.regions()]
        if not ids:
            return
        at = ids.index(self.region_id) if self.region_id in ids else -1
        self.region_id = ids[(at + step) % len(ids)]

    def select(self, region_id: int | None) -> None:
        self.region_id = region_id

    # -- what typing means ------------------------------------------------------------

    def category_choices(self) -> list[str]:
        return [completion_text(e) for e in self.ontology.of_kind("category")]

    def attribute_choices(self) -> list[str]:
        return [completion_text(e) for e in self.ontology.of_kind("attribute")]

    def outfit_choices(self) -> list[str]:
        return [completion_text(e) for e in self.ontology.of_kind("outfit")
                if e.supercategory in OUTFIT_FIELDS]

    def lookup(self, kind: str, text: str) -> OntologyEntry | None:
        return lookup(self.ontology, kind, text)

    def explain_unknown(self, kind: str, text: str) -> str:
        what = {"attribute": "region attribute", "outfit": "style, occasion, season or scene"
                " value"}.get(kind, kind)
        return explain_unknown(self.ontology, kind, text, what)

    def name(self, entry_id: int) -> str:
        entry = self.ontology.by_id.get(entry_id)
        return entry.name if entry else str(entry_id)

    # -- edits (each undoable) ---------------------------------------------------------

    def _edit(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        image_id = self.image_id
        if image_id is None:
            raise editing.OutfitError("No picture to annotate: add an image to the project.")
        saved = editing.snapshot(self.project, image_id)
        result = function(self.project, self.actor, *args, **kwargs)
        self.undo_stack.append((image_id, saved))
        del self.undo_stack[:-UNDO_DEPTH]
        self._load()
        return result

    def add_region(self, category: OntologyEntry, box: Box | None = None,
                   polygon: Polygon | None = None) -> int:
        """A new region; a part drawn while a garment (or one of its parts) is selected
        is attached to that garment."""
        garment_id = None
        current = self.region()
        if category.is_part and current is not None:
            garment_id = current.id if current.role == "garment" else current.garment_id
        region_id = int(self._edit(editing.add_region, self.image_id, category.id, box=box,
                                   polygon=polygon, garment_id=garment_id))
        self.region_id = region_id
        return region_id

    def set_category(self, category: OntologyEntry) -> None:
        if self.region_id is not None:
            self._edit(editing.edit_region, self.region_id, category_id=category.id)

    def move_region(self, dx: float, dy: float) -> None:
        region = self.region()
        if region is None or (dx, dy) == (0, 0):
            return
        box = None if region.box is None else (region.box[0] + dx, region.box[1] + dy,
                                               region.box[2], region.box[3])
        polygon = None if region.polygon is None else tuple(
            tuple(v + (dx if i % 2 == 0 else dy) for i, v in enumerate(ring))
            for ring in region.polygon
        )
        self._edit(editing.edit_region, region.id, box=box, polygon=polygon)

    def reshape(self, box: Box | None, polygon: Polygon | None) -> None:
        if self.region_id is not None:
            self._edit(editing.edit_region, self.region_id, box=box, polygon=polygon)

    def attach(self, garment_id: int | None) -> None:
        if self.region_id is not None:
            self._edit(editing.edit_region, self.region_id, garment_id=garment_id)

    def delete_region(self) -> None:
        if self.region_id is not None:
            self._edit(editing.delete_region, self.region_id)

    def set_attribute(self, attribute: OntologyEntry, present: bool = True) -> None:
        if self.region_id is not None:
            self._edit(editing.set_region_attribute, self.region_id, attribute.id, present)

    def set_outfit_value(self, value: OntologyEntry, present: bool = True) -> None:
        self._edit(editing.set_outfit_value, self.image_id, value.id, present)

    def review(self, table: str, owner: Any, value_id: int, status: str) -> None:
        image_id = self.image_id
        saved = editing.snapshot(self.project, image_id) if image_id else None
        editing.review_label(self.project, self.actor, table, owner, value_id, status)
        if image_id and saved is not None:
            self.undo_stack.append((image_id, saved))
        self._load()

    def review_region(self, status: str) -> None:
        """A second person accepts or rejects the current region (a model's proposal)."""
        if self.region_id is not None:
            self._edit_as_reviewer(editing.review_region, self.region_id, status)

    def _edit_as_reviewer(self, function: Any, *args: Any) -> None:
        image_id = self.image_id
        if image_id is None:
            return
        saved = editing.snapshot(self.project, image_id)
        function(self.project, self.actor, *args)
        self.undo_stack.append((image_id, saved))
        self._load()

    def describe(self, general: str, concise: str) -> None:
        """Autosave of the description fields (no undo step: typing has its own)."""
        if self.image_id is not None:
            editing.set_descriptions(self.project, self.actor, self.image_id, general, concise)
            self._load()

    def undo(self) -> bool:
        if not self.undo_stack:
            return False
        image_id, saved = self.undo_stack.pop()
        editing.restore(self.project, self.actor, image_id, saved)
        if image_id in self.image_ids:
            self.index = self.image_ids.index(image_id)
        self._load()
        return True
