"""Facets: groups of attributes of which an item has one value (colour, sleeve, length …).

Sessions need them in three places: to read what a turn's text asks for ("make it red" →
color=red, with the caption reader of ``studio.language.reader``), to know what each gallery item is (from its attribute labels), and to let the
chat questioner ask one facet per round. The groups live in
``resources/vocabulary/facets.json``; labels come from the attributes query API, so any
project with attributes (extracted, suggested or reviewed) gets facets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from resources import resource_path
from studio.attributes.records import VocabularyEntry
from studio.store import Project
from studio.store.repos import attributes as attributes_repo

FACETS_FILE = resource_path("vocabulary", "facets.json")
# Which labels describe an item best, best first; rejected labels never count.
_SOURCE_RANK = {"person": 0, "text": 1, "model": 2}


@dataclass(frozen=True)
class FacetMap:
    """Attribute name → facet, for the attributes of one vocabulary."""

    facet_of: Mapping[str, str]
    names: tuple[str, ...]

    @classmethod
    def for_vocabulary(cls, entries: Sequence[VocabularyEntry], path: Path = FACETS_FILE) -> FacetMap:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))["facets"]
        known = {entry.name: entry for entry in entries}
        facet_of: dict[str, str] = {}
        for facet, rule in spec.items():
            if "type" in rule:
                members = [e.name for e in entries if e.type == rule["type"]]
            else:
                members = [name for name in rule["attributes"] if name in known]
            for name in members:
                facet_of.setdefault(name, facet)
        return cls(facet_of=facet_of, names=tuple(spec))

    def facets_of(self, attributes: Sequence[str]) -> dict[str, str]:
        """The first attribute of each facet, in the given order."""
        values: dict[str, str] = {}
        for name in attributes:
            facet = self.facet_of.get(name)
            if facet is not None and facet not in values:
                values[facet] = name
        return values


def project_facets(project: Project, facet_map: FacetMap) -> dict[str, dict[str, str]]:
    """image id → {facet: value}: people's accepted labels first, then text, then model."""
    rows = attributes_repo.unrejected_labels(project)
    ranked = sorted(
        rows,
        key=lambda r: (r[3] != "accepted", _SOURCE_RANK.get(r[2], 3), -float(r[4]), r[1]),
    )
    facets: dict[str, dict[str, str]] = {}
    for image_id, name, *_ in ranked:
        facet = facet_map.facet_of.get(name)
        if facet is not None:
            facets.setdefault(image_id, {}).setdefault(facet, name)
    return facets
