"""Part words in retrieval turns: "with a ribbed cuff and no pocket", "the one I want
has a belt".

When a project has outfit annotations, the names of its part categories (sleeve, pocket,
zipper, hood …) and of its accessories (belt, hat, bag …) become phrases the caption
reader knows, each as a facet of its own (``part:pocket``), so the reader's negation and
"with"/"has" handling apply unchanged ("no pocket" → ``part:pocket`` not ``pocket``). Each
annotated picture gets a value for every such facet: the part's name when an accepted
region of that category is on the picture, else ``none`` (a fully annotated picture says
what it lacks). Sessions re-rank with these like any other facet.
"""

from __future__ import annotations

from studio.language.lexicon import plural
from studio.outfits.ontology import load_ontology
from studio.outfits.store import load_outfits
from studio.store import Project

ABSENT = "none"
_MAIN_TYPES = ("one-piece", "top", "bottom")  # whole garments: what an item *is*, not has


def part_vocabulary(project: Project) -> dict[str, tuple[str, str]]:
    """phrase → (facet, value) for the project's part and accessory categories."""
    out: dict[str, tuple[str, str]] = {}
    for entry in load_ontology(project).of_kind("category"):
        if not entry.is_part and entry.garment_type in _MAIN_TYPES:
            continue
        names = [name.strip() for name in entry.name.split(",") if name.strip()]
        primary = names[0]
        for name in names:
            for phrase in (name, plural(name)):
                out.setdefault(phrase, (f"part:{primary}", primary))
    return out


def part_facets(project: Project) -> dict[str, dict[str, str]]:
    """image id → {``part:NAME``: NAME or ``none``} for every annotated outfit picture."""
    vocabulary = part_vocabulary(project)
    facets = sorted({facet for facet, _ in vocabulary.values()})
    if not facets:
        return {}
    ontology = load_ontology(project)
    out: dict[str, dict[str, str]] = {}
    for outfit in load_outfits(project):
        held = [r for r in outfit.regions if r.status == "accepted"]
        if not held:
            continue
        present = {
            f"part:{ontology.by_id[r.category_id].name.split(',')[0].strip()}" for r in held
        }
        out[outfit.picture.image_id] = {
            facet: facet[len("part:"):] if facet in present else ABSENT for facet in facets
        }
    return out
