"""The outfit ontology of a project: categories (with levels and supercategories),
attributes grouped by supercategory, and outfit values grouped by field.

Fashionpedia's ontology arrives with an import; the studio's own entries (colours,
materials, outfit values, the common garment categories) are seeded on first use so a
project without Fashionpedia can still be annotated. A Fashionpedia entry with the name of
a studio entry adopts it instead of duplicating it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from resources import resource_path
from studio.errors import ValidationError
from studio.outfits.records import OUTFIT_FIELDS, OntologyEntry
from studio.store import Project
from studio.store.repos import outfits as repo

STUDIO_ONTOLOGY = resource_path("outfits", "studio_ontology.json")


@dataclass
class Ontology:
    """Lookups over the project's ontology entries."""

    entries: list[OntologyEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_id = {entry.id: entry for entry in self.entries}
        self._by_name: dict[tuple[str, str, str], OntologyEntry] = {}
        self._names: dict[tuple[str, str], list[OntologyEntry]] = {}
        self._external: dict[tuple[str, int], OntologyEntry] = {}
        for entry in self.entries:
            self._by_name[(entry.kind, entry.supercategory, entry.name)] = entry
            self._names.setdefault((entry.kind, entry.name), []).append(entry)
            if entry.external_id is not None:
                self._external[(entry.kind, entry.external_id)] = entry

    def of_kind(self, kind: str) -> list[OntologyEntry]:
        return [entry for entry in self.entries if entry.kind == kind]

    def find(self, kind: str, name: str, supercategory: str | None = None) -> OntologyEntry | None:
        """By name (and supercategory when given, or when the name alone is ambiguous)."""
        if supercategory is not None:
            return self._by_name.get((kind, supercategory, name))
        found = self._names.get((kind, name), [])
        return found[0] if len(found) == 1 else None

    def external(self, kind: str, external_id: int) -> OntologyEntry | None:
        return self._external.get((kind, external_id))

    def takes_one(self, entry: OntologyEntry) -> bool:
        """Does the entry's field take one value (a second one replaces it)?"""
        return entry.supercategory in single_valued_fields().get(entry.kind, ())

    def outfit_values(self, field_name: str) -> list[OntologyEntry]:
        return [e for e in self.entries if e.kind == "outfit" and e.supercategory == field_name]


def entry_from_row(row: dict) -> OntologyEntry:
    return OntologyEntry(
        id=int(row["id"]),
        kind=row["kind"],
        name=row["name"],
        supercategory=row["supercategory"] or "",
        level=row["level"],
        taxonomy_id=row["taxonomy_id"] or "",
        description=row["description"] or "",
        external_id=row["external_id"],
        origin=row["origin"],
    )


def load_ontology(project: Project) -> Ontology:
    return Ontology([entry_from_row(row) for row in repo.ontology_rows(project)])


def single_valued_fields() -> dict[str, tuple[str, ...]]:
    """Fields (attribute supercategories, outfit fields) that take one value per region
    or picture, from the shipped ontology: an outfit has one style, a garment one
    neckline. Seasons, occasions, colours and materials take several."""
    global _SINGLE_VALUED
    if _SINGLE_VALUED is None:
        data = json.loads(STUDIO_ONTOLOGY.read_text(encoding="utf-8")).get("single_valued", {})
        _SINGLE_VALUED = {kind: tuple(names) for kind, names in data.items()
                          if isinstance(names, list)}
    return _SINGLE_VALUED


_SINGLE_VALUED: dict[str, tuple[str, ...]] | None = None


def studio_entries() -> list[dict]:
    """The shipped studio ontology as rows (kind, name, supercategory, position)."""
    data = json.loads(STUDIO_ONTOLOGY.read_text(encoding="utf-8"))
    rows: list[dict] = []
    for position, (name, supercategory) in enumerate(data["categories"]):
        rows.append({"kind": "category", "name": name, "supercategory": supercategory,
                     "level": 2, "position": 10_000 + position})
    for supercategory, names in data["attributes"].items():
        for name in names:
            rows.append({"kind": "attribute", "name": name, "supercategory": supercategory,
                         "level": 1, "position": 10_000 + len(rows)})
    for field_name, names in data["outfit"].items():
        if field_name not in OUTFIT_FIELDS:
            raise ValidationError(f"{STUDIO_ONTOLOGY}: unknown outfit field {field_name!r}")
        for name in names:
            rows.append({"kind": "outfit", "name": name, "supercategory": field_name,
                         "position": len(rows)})
    for row in rows:
        row.setdefault("taxonomy_id", "")
        row.setdefault("description", "")
        row["origin"] = "studio"
    return rows


def seed_studio_ontology(project: Project) -> None:
    """Add the studio's entries that are missing (call inside a write; idempotent)."""
    known = {(r["kind"], r["supercategory"], r["name"]) for r in repo.ontology_rows(project)}
    for row in studio_entries():
        if (row["kind"], row["supercategory"], row["name"]) not in known:
            repo.insert_ontology(project, row)


def store_fashionpedia_ontology(
    project: Project, categories: list[dict], attributes: list[dict], origin: str = "fashionpedia"
) -> dict[tuple[str, int], int]:
    """Store a Fashionpedia ontology (call inside a write); (kind, file id) -> entry id.

    A studio entry of the same kind, supercategory and name is adopted (it takes the
    file's id and entry), so labels already made with it stay."""
    seed_studio_ontology(project)
    ontology = load_ontology(project)
    out: dict[tuple[str, int], int] = {}
    for kind, entries in (("category", categories), ("attribute", attributes)):
        for position, entry in enumerate(entries):
            row = {
                "kind": kind,
                "name": entry["name"],
                "supercategory": str(entry.get("supercategory") or ""),
                "level": entry.get("level") if isinstance(entry.get("level"), int) else None,
                "taxonomy_id": str(entry.get("taxonomy_id") or ""),
                "description": str(entry.get("description") or ""),
                "external_id": entry["id"],
                "origin": origin,
                "raw": json.dumps(entry, ensure_ascii=False),
                "position": position,
            }
            known = ontology.external(kind, entry["id"]) or ontology.find(
                kind, row["name"], row["supercategory"]
            )
            if known is None:
                out[(kind, entry["id"])] = repo.insert_ontology(project, row)
            else:
                if known.external_id is None:
                    repo.adopt_ontology(project, known.id, row)
                out[(kind, entry["id"])] = known.id
    return out


def import_ontology_file(project: Project, path: Path, actor: str) -> dict[str, int]:
    """Add a Fashionpedia-style ontology file (``{"categories", "attributes"}``, such as
    ``category_attributes_descriptions.json``) to the project, checked first."""
    from studio.importers.validation import Problems
    from studio.outfits.fashionpedia_read import OutfitImportError, read_ontology_file

    problems = Problems(path.parent)
    categories, attributes = read_ontology_file(path, load_ontology(project), problems)
    if len(problems):
        raise OutfitImportError("Ontology", problems.items)
    with project.change(actor, "outfits.import_ontology", "outfit_ontology", path.name) as record:
        store_fashionpedia_ontology(project, categories, attributes)
        record["after"] = {"categories": len(categories), "attributes": len(attributes)}
    return {"categories": len(categories), "attributes": len(attributes)}
