"""Outfit work travels in team packages and merges back (uids, natural keys, parts)."""

from __future__ import annotations

from pathlib import Path

from studio.demo.outfits import add_demo_outfits
from studio.outfits import editing
from studio.outfits.ontology import load_ontology
from studio.outfits.records import effective
from studio.outfits.store import load_outfit
from studio.store import Project
from studio.team.assignments import assign_attributes
from studio.team.merge import merge_packages
from studio.team.pack import pack


def test_an_outfit_edited_in_a_package_merges_back(tmp_path: Path) -> None:
    with Project.create(tmp_path / "lead", image_root=tmp_path / "lead") as project:
        add_demo_outfits(project, tmp_path / "lead", count=2, seed=5)
        assert assign_attributes(project, ["ann"], "lead", category="outfit") == {"ann": 2}
        result = pack(project, "ann", tmp_path / "out", "lead", with_images=True)
        before = load_outfit(project, "outfit-00000")
    assert before is not None
    with Project.open(result.path) as package:
        ontology = load_ontology(package)
        outfit = load_outfit(package, "outfit-00000")
        assert outfit is not None and len(outfit.regions) == len(before.regions)
        garment = outfit.garments()[0]
        belt = editing.add_region(package, "ann", "outfit-00000",
                                  ontology.find("category", "belt").id, box=(120, 200, 80, 12))
        zipper = editing.add_region(package, "ann", "outfit-00000",
                                    ontology.find("category", "zipper").id,
                                    box=(150, 120, 8, 60), garment_id=garment.id)
        editing.set_region_attribute(package, "ann", zipper,
                                     ontology.find("attribute", "black", "color").id)
        editing.set_outfit_value(package, "ann", "outfit-00000",
                                 ontology.find("outfit", "winter", "season").id)
        editing.delete_region(package, "ann", outfit.garments()[-1].id)
        expected = load_outfit(package, "outfit-00000")
        del belt
    with Project.open(tmp_path / "lead") as project:
        reports = merge_packages(project, [result.path], "lead")
        assert not reports[0].unplaced, reports[0].unplaced
        merged = load_outfit(project, "outfit-00000")
        ontology = load_ontology(project)
    assert merged is not None and expected is not None

    def shape(outfit):  # noqa: ANN001, ANN202
        names = {r.id: ontology.by_id[r.category_id].name for r in outfit.regions}
        return sorted(
            (names[r.id], r.box, names.get(r.garment_id),
             sorted(ontology.by_id[label.value_id].name
                    for label in effective(outfit.region_labels.get(r.id, []))))
            for r in outfit.regions
        ), sorted(ontology.by_id[v.value_id].name for v in effective(outfit.outfit_labels))

    assert shape(merged) == shape(expected)
    assert "winter" in shape(merged)[1]
