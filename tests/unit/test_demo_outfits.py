"""Demo outfits: generated pictures with garments, parts and values known, export-clean."""

from __future__ import annotations

from pathlib import Path

from studio.demo.outfits import add_demo_outfits
from studio.importers.validation import Problems
from studio.outfits.fashionx import check_pictures
from studio.outfits.fashionx_io import picture_document
from studio.outfits.ontology import load_ontology
from studio.outfits.records import effective
from studio.outfits.store import load_outfits
from studio.store import Project


def test_demo_outfits_hold_two_to_four_garments_with_parts_and_pass_the_checks(
    tmp_path: Path,
) -> None:
    with Project.create(tmp_path / "p", image_root=tmp_path) as project:
        assert add_demo_outfits(project, tmp_path, count=12, seed=3) == 12
        ontology = load_ontology(project)
        outfits = load_outfits(project)
        assert len(outfits) == 12
        for outfit in outfits:
            garments = outfit.garments()
            assert 2 <= len({g.category_id for g in garments}) <= 4
            assert any(outfit.parts_of(g.id) for g in garments)
            assert {ontology.by_id[v.value_id].supercategory
                    for v in effective(outfit.outfit_labels)} == {"style", "occasion",
                                                                   "season", "scene"}
            assert (tmp_path / "outfits" / f"{outfit.picture.image_id}.jpg").is_file()
        problems = Problems(tmp_path)
        documents = [picture_document(project, o, ontology) for o in outfits]
        check_pictures(tmp_path / "demo.json", documents, ontology, problems)
        assert problems.items == []
    # Deterministic: the same seed draws the same pictures.
    with Project.create(tmp_path / "q", image_root=tmp_path / "again") as again:
        add_demo_outfits(again, tmp_path / "again", count=12, seed=3)
    first = (tmp_path / "outfits" / "outfit-00005.jpg").read_bytes()
    assert (tmp_path / "again" / "outfits" / "outfit-00005.jpg").read_bytes() == first
